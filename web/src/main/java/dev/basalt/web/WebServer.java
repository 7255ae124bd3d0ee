package dev.basalt.web;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.javalin.http.staticfiles.Location;

import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * {@code basalt serve}: the page (plain HTML, CSS and JavaScript from the jar, nothing from a CDN) and its JSON API
 * on Javalin (Jetty). Hardened like a service: bound to 127.0.0.1 unless told otherwise, a request body of at most
 * {@link Limits#maxBytes}, at most {@link Limits#concurrency} predictions at once (more are told "busy", 503, at
 * once), each cut off after {@link Limits#timeoutSeconds} (504); requests name no file and run no program.
 */
public final class WebServer implements AutoCloseable {

    /**
     * The service's limits.
     *
     * @param maxBytes       largest request body (pasted text or an uploaded object file)
     * @param concurrency    predictions running at once
     * @param timeoutSeconds longest a prediction may take
     */
    public record Limits(int maxBytes, int concurrency, int timeoutSeconds) {

        public Limits {
            if (maxBytes < 1024 || concurrency < 1 || timeoutSeconds < 1) {
                throw new IllegalArgumentException("limits must be at least 1 KB, 1 request and 1 second: " + maxBytes
                        + ", " + concurrency + ", " + timeoutSeconds);
            }
        }

        /** 4 MB, two predictions a core, 20 seconds. */
        public static Limits defaults() {
            return new Limits(4 << 20, 2 * Runtime.getRuntime().availableProcessors(), 20);
        }
    }

    private final Javalin app;
    private final WebApi api;
    private final Limits limits;
    private final Semaphore permits;
    private final ExecutorService workers;

    private WebServer(Javalin app, Limits limits, WebApi api) {
        this.app = app;
        this.api = api;
        this.limits = limits;
        this.permits = new Semaphore(limits.concurrency());
        this.workers = Executors.newFixedThreadPool(limits.concurrency(), r -> {
            Thread t = new Thread(r, "basalt-serve-worker");
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts serving on {@code host}:{@code port} (0: any free port). */
    public static WebServer start(String host, int port, Limits limits) {
        return start(host, port, limits, new WebApi());
    }

    /** Starts serving {@code api} on {@code host}:{@code port} (0: any free port). */
    public static WebServer start(String host, int port, Limits limits, WebApi api) {
        Javalin app = Javalin.create(config -> {
            config.showJavalinBanner = false;
            // the page's JSON as the commands write it: numbers to six decimals (core ReportJson)
            config.jsonMapper(new io.javalin.json.JavalinJackson(dev.basalt.core.ReportJson.mapper(), false));
            config.http.maxRequestSize = limits.maxBytes();
            config.staticFiles.add(files -> {
                files.hostedPath = "/";
                files.directory = "/dev/basalt/web/static";
                files.location = Location.CLASSPATH;
            });
        });
        WebServer server = new WebServer(app, limits, api);
        app.get("/api/info", ctx -> ctx.json(server.api.info()));
        app.post("/api/predict", ctx -> server.run(ctx, () -> server.api.predict(WebApi.parse(ctx.body()))));
        app.post("/api/upload", ctx -> {
            byte[] bytes = ctx.bodyAsBytes();
            String name = ctx.queryParamAsClass("name", String.class).getOrDefault("upload");
            JsonNode choices = WebApi.choices(ctx.queryParams("cpu"), ctx.queryParams("estimator"));
            server.run(ctx, () -> server.api.upload(bytes, name.length() > 200 ? name.substring(0, 200) : name,
                    choices));
        });
        app.exception(WebApi.BadRequest.class, (e, ctx) -> ctx.status(HttpStatus.BAD_REQUEST)
                .json(WebApi.error(e.getMessage())));
        app.start(host, port);
        return server;
    }

    /** Runs one prediction within the limits: busy (503) when all permits are taken, 504 past the time limit. */
    private void run(Context ctx, Supplier<Object> work) throws Exception {
        if (ctx.bodyAsBytes().length > limits.maxBytes()) {
            ctx.status(HttpStatus.CONTENT_TOO_LARGE).json(WebApi.error("the request is larger than "
                    + limits.maxBytes() + " bytes"));
            return;
        }
        if (!permits.tryAcquire()) {
            ctx.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                    .json(WebApi.error("busy: " + limits.concurrency() + " predictions are running; try again in a "
                            + "moment"));
            return;
        }
        try {
            Future<Object> result = workers.submit(work::get);
            try {
                ctx.json(result.get(limits.timeoutSeconds(), TimeUnit.SECONDS));
            } catch (TimeoutException slow) {
                result.cancel(true);
                ctx.status(HttpStatus.GATEWAY_TIMEOUT).json(WebApi.error("the prediction took longer than "
                        + limits.timeoutSeconds() + " s: give fewer or shorter blocks"));
            } catch (java.util.concurrent.ExecutionException failed) {
                if (failed.getCause() instanceof WebApi.BadRequest bad) {
                    throw bad;
                }
                ctx.status(HttpStatus.INTERNAL_SERVER_ERROR).json(WebApi.error("internal error: "
                        + failed.getCause()));
            }
        } finally {
            permits.release();
        }
    }

    /** The port it listens on. */
    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
        workers.shutdownNow();
    }

    /** For tests: the estimators this build offers. */
    List<String> estimators() {
        List<String> out = new java.util.ArrayList<>();
        api.info().get("estimators").forEach(n -> out.add(n.asText()));
        return out;
    }
}

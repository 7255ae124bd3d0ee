package dev.basalt.cli;

import dev.basalt.web.WebServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** {@code basalt serve}: the local web page (module {@code web}) until interrupted. */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = {"Serve a local web page: paste assembly or hex, or open an object file; see each prediction "
                + "with its interval, the bounds and bottleneck, the instruction table as a heat map, the pipeline "
                + "trace and each instruction's share. Nothing is executed; requests read no files.",
                "Stop it with Ctrl-C."})
final class ServeCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--port", defaultValue = "8080", description = "Port (default ${DEFAULT-VALUE}; 0: any free port).")
    int port;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "Address to listen on (default "
            + "${DEFAULT-VALUE}: this machine only).")
    String host;

    @Option(names = "--max-request", defaultValue = "4194304", paramLabel = "BYTES",
            description = "Largest request body (default ${DEFAULT-VALUE}).")
    int maxRequest;

    @Option(names = "--concurrency", defaultValue = "0", description = "Predictions at once; more are told busy "
            + "(default: two a core).")
    int concurrency;

    @Option(names = "--timeout", defaultValue = "20", paramLabel = "SECONDS", description = "Longest a prediction "
            + "may take (default ${DEFAULT-VALUE}).")
    int timeout;

    @Mixin
    DebugOption debugOption;

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        if (port < 0 || port > 65535) {
            throw new BadInputException("--port must be 0..65535, got " + port);
        }
        BadInputException.atLeast("--max-request", maxRequest, 1024);
        BadInputException.atLeast("--timeout", timeout, 1);
        BadInputException.atLeast("--concurrency", concurrency, 0);
        WebServer.Limits limits = new WebServer.Limits(maxRequest, concurrency == 0
                ? 2 * Runtime.getRuntime().availableProcessors() : concurrency, timeout);
        WebServer server;
        try {
            server = WebServer.start(host, port, limits, new dev.basalt.web.WebApi(DefaultCpus.resolve(null,
                    DefaultCpus.shipped(), err, "basalt serve")));
        } catch (RuntimeException e) {
            throw new BadInputException("cannot listen on " + host + ":" + port + " (" + rootMessage(e) + ")");
        }
        err.println("basalt serve: http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + server.port()
                + "/  (Ctrl-C stops it)");
        err.flush();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stop.countDown();
        }));
        stop.await();
        return 0;
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null) {
            t = t.getCause();
        }
        if (t instanceof java.nio.channels.UnresolvedAddressException) {
            return "the address does not resolve";
        }
        return t.getMessage() == null ? "the address cannot be bound" : t.getMessage();
    }
}

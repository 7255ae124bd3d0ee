package dev.basalt.bench;

import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.web.WebServer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The load test of {@code basalt serve}, loopback only: {@code clients} threads each post predictions
 * of bundled BHive blocks (and, one in ten, a bad input) back to back for {@code seconds}, to a server started in
 * this JVM with the default limits. It counts answers by status — 200 predicted, 400 the bad inputs' errors, 503
 * "busy" (the concurrency limit working) — and everything else as an error (any other status, a refused or dropped
 * connection, a timeout), with latency percentiles, and the process's resident memory before, after and after a
 * second run of the same length (a leak grows it run over run).
 *
 * <p>The simulator's per-instruction caches are bounded (65,536 decodings a map) but fill as new blocks come, so
 * memory grows with the distinct blocks seen until they are full; {@code pool} limits the blocks drawn so that the
 * caches fill in the first run and any growth after it is a leak.
 *
 * <pre>java -cp bench/target/benchmarks.jar dev.basalt.bench.ServeLoad [clients] [seconds] [runs] [pool]</pre>
 */
public final class ServeLoad {

    private ServeLoad() {
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        // how many distinct blocks the clients draw from: a pool the caches can hold shows a leak apart from them
        int pool = args.length > 3 ? Integer.parseInt(args[3]) : Integer.MAX_VALUE;
        List<String> blocks = new ArrayList<>();
        for (LabelledBlock b : Dataset.bundled().blocks()) {
            blocks.add(b.hex());
        }
        Collections.shuffle(blocks, new Random(39));
        if (blocks.size() > pool) {
            blocks = new ArrayList<>(blocks.subList(0, pool));
        }
        try (WebServer server = WebServer.start("127.0.0.1", 0, WebServer.Limits.defaults())) {
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/api/predict");
            System.out.printf(Locale.ROOT, "server on %s, limits %s; %d clients, %d s a run, %d distinct blocks%n",
                    uri, WebServer.Limits.defaults(), clients, seconds, blocks.size());
            System.gc();
            System.out.printf(Locale.ROOT, "RSS before: %d MB%n", rssMegabytes());
            for (int run = 1; run <= runs; run++) {
                run(run, uri, clients, seconds, blocks);
                System.gc();
                Thread.sleep(1000);
                System.out.printf(Locale.ROOT, "RSS after run %d: %d MB (heap used %d MB)%n", run, rssMegabytes(),
                        (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) >> 20);
            }
        }
    }

    private static void run(int run, URI uri, int clients, int seconds, List<String> blocks) throws Exception {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        ConcurrentHashMap<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
        List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        CountDownLatch done = new CountDownLatch(clients);
        for (int c = 0; c < clients; c++) {
            int id = c;
            Thread t = new Thread(() -> {
                Random random = new Random(id);
                try {
                    while (System.nanoTime() < end) {
                        boolean bad = random.nextInt(10) == 0;
                        String text = bad ? "add eax, 0x123456789" : blocks.get(random.nextInt(blocks.size()));
                        String body = "{\"text\":\"" + text + "\",\"cpus\":[\"haswell\",\"skylake\"],"
                                + "\"estimators\":[\"simulator\",\"bounds\"]}";
                        long start = System.nanoTime();
                        String outcome;
                        try {
                            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri)
                                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            outcome = r.statusCode() == 200 && !bad ? "200 predicted"
                                    : r.statusCode() == 400 && bad && r.body().contains("line 1, column 1")
                                    ? "400 bad input, named" : r.statusCode() == 503 ? "503 busy"
                                    : "error: status " + r.statusCode();
                            if (r.statusCode() == 503) {
                                Thread.sleep(20 + random.nextInt(30));  // as a client told Retry-After would
                            }
                        } catch (java.io.IOException e) {
                            outcome = "error: " + e.getClass().getSimpleName();
                        }
                        latencies.add(System.nanoTime() - start);
                        outcomes.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } finally {
                    done.countDown();
                }
            }, "client-" + c);
            t.setDaemon(true);
            t.start();
        }
        done.await();
        List<Long> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        long total = outcomes.values().stream().mapToLong(AtomicLong::get).sum();
        System.out.printf(Locale.ROOT, "run %d: %,d requests in %d s (%,.0f/s); latency ms p50 %.1f, p99 %.1f, max %.1f%n",
                run, total, seconds, total / (double) seconds, ms(sorted, 0.5), ms(sorted, 0.99),
                sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1) / 1e6);
        new java.util.TreeMap<>(outcomes).forEach((k, v) -> System.out.printf(Locale.ROOT, "  %-28s %,d%n", k,
                v.get()));
    }

    private static double ms(List<Long> sorted, double q) {
        return sorted.isEmpty() ? 0 : sorted.get((int) Math.min(sorted.size() - 1, q * sorted.size())) / 1e6;
    }

    private static long rssMegabytes() throws java.io.IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
            }
        }
        return -1;
    }
}

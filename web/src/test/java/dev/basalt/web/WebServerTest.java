package dev.basalt.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The server's API and limits over HTTP on loopback: predictions, errors, size and concurrency limits, uploads. */
class WebServerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient client = HttpClient.newHttpClient();

    private HttpResponse<String> post(WebServer server, String path, HttpRequest.BodyPublisher body) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .POST(body).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aPredictionCarriesTheSimulatorsOneStory() throws Exception {
        try (WebServer server = WebServer.start("127.0.0.1", 0, WebServer.Limits.defaults())) {
            HttpResponse<String> r = post(server, "/api/predict", HttpRequest.BodyPublishers.ofString(
                    "{\"text\":\"loop: add rax, rbx; imul rax, rax; dec rcx; jnz loop\",\"cpus\":[\"haswell\"],"
                            + "\"estimators\":[\"simulator\",\"bounds\"]}"));
            assertEquals(200, r.statusCode(), r.body());
            JsonNode block = JSON.readTree(r.body()).get("blocks").get(0);
            assertTrue(block.get("input").asText().endsWith(", a loop"), block.get("input").asText());
            assertEquals(4.0, block.get("predictions").get(0).get("cycles").asDouble(), 1e-9);
            JsonNode d = block.get("details").get(0);
            assertEquals("dependency_chain", d.get("bottleneck").get("kind").asText());
            double busiest = 0;
            for (JsonNode v : d.get("port_loads")) {
                busiest = Math.max(busiest, v.asDouble());
            }
            assertEquals(d.get("bounds").get("ports").asDouble(), busiest, 1e-9, "the port table's busiest row");
            assertEquals(4, d.get("table").size());
            assertTrue(d.get("timeline").size() >= 16);
            HttpResponse<String> bad = post(server, "/api/predict", HttpRequest.BodyPublishers.ofString(
                    "{\"text\":\"add rax, rbx\",\"cpus\":[\"pentium\"]}"));
            assertEquals(400, bad.statusCode());
            assertEquals("unknown CPU 'pentium'", JSON.readTree(bad.body()).get("error").asText());
            HttpResponse<String> file = post(server, "/api/predict", HttpRequest.BodyPublishers.ofString(
                    "{\"text\":\"add rax, rbx\",\"estimators\":[\"/etc/passwd\"]}"));
            assertEquals(400, file.statusCode(), "a request names no file: " + file.body());
            HttpResponse<String> notJson = post(server, "/api/predict", HttpRequest.BodyPublishers.ofString("[1,"));
            assertEquals(400, notJson.statusCode());
        }
    }

    @Test
    void requestsPastTheLimitsAreToldSoAtOnce() throws Exception {
        try (WebServer server = WebServer.start("127.0.0.1", 0, new WebServer.Limits(4096, 1, 20))) {
            HttpResponse<String> big = post(server, "/api/predict", HttpRequest.BodyPublishers.ofString(
                    "{\"text\":\"" + "4801d8".repeat(2000) + "\"}"));
            assertEquals(413, big.statusCode(), big.body());
            // 16 clients at once on one permit: some are told busy, none gets anything else
            String many = "{\"text\":\"" + "4801d8480fafc0\\n".repeat(40) + "\",\"cpus\":[\"haswell\",\"skylake\","
                    + "\"ivybridge\"]}";
            ExecutorService pool = Executors.newFixedThreadPool(16);
            List<Future<Integer>> codes = new ArrayList<>();
            for (int k = 0; k < 16; k++) {
                codes.add(pool.submit(() -> post(server, "/api/predict",
                        HttpRequest.BodyPublishers.ofString(many)).statusCode()));
            }
            int ok = 0;
            int busy = 0;
            for (Future<Integer> c : codes) {
                int code = c.get();
                assertTrue(code == 200 || code == 503, "status " + code);
                ok += code == 200 ? 1 : 0;
                busy += code == 503 ? 1 : 0;
            }
            pool.shutdown();
            assertTrue(ok >= 1 && busy >= 1, ok + " predicted, " + busy + " busy");
        }
    }

    @Test
    void anUploadedProgramIsReadInMemory() throws Exception {
        Path program = Path.of("/bin/true");
        Assumptions.assumeTrue(Files.isRegularFile(program), "/bin/true is not here");
        try (WebServer server = WebServer.start("127.0.0.1", 0, WebServer.Limits.defaults())) {
            HttpResponse<String> r = post(server, "/api/upload?name=true&cpu=haswell&estimator=bounds",
                    HttpRequest.BodyPublishers.ofByteArray(Files.readAllBytes(program)));
            assertEquals(200, r.statusCode(), r.body());
            assertTrue(JSON.readTree(r.body()).get("blocks").size() >= 1);
            HttpResponse<String> junk = post(server, "/api/upload?name=junk.o",
                    HttpRequest.BodyPublishers.ofByteArray(new byte[] {1, 2, 3, 4, 5}));
            assertEquals(400, junk.statusCode());
            assertEquals("junk.o is not an ELF file (it does not start with 0x7f 'ELF')",
                    JSON.readTree(junk.body()).get("error").asText());
        }
    }
}

package dev.basalt.doctests;

import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs every command the README and the guide ({@code docs/guide/*.md}) show in {@code ```console} blocks and checks
 * what it prints ({@link Transcript} has the format). Each page's commands run in order, in a folder of their own
 * where {@code ./basalt} is this build's command line and {@code docs} is the project's, so an example can read the
 * project's example files and a later example can read what an earlier one wrote. With
 * {@code -Dbasalt.regenerate=true} a page whose output changed is rewritten with what the commands print now
 * (review the diff: a changed prediction is a changed claim).
 */
class GuideExamplesTest {

    private static final long TIMEOUT_MINUTES = 10;

    static Path project() {
        return Path.of(System.getProperty("basalt.project.dir", "..")).toAbsolutePath().normalize();
    }

    static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(project().resolve("README.md"));
        Path guide = project().resolve("docs/guide");
        if (Files.isDirectory(guide)) {
            try (Stream<Path> s = Files.list(guide)) {
                s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    @Test
    void theTranscriptReaderSplitsCommandsAndMatchesWildcards() {
        Transcript t = Transcript.parse(Path.of("x.md"), "text\n```console\n$ ./basalt predict 'add rax, rbx\n"
                + "imul rax, rax'\nline one\nline two\n$ false\n[exit 1]\n```\n```sh\n$ not run\n```\n");
        assertEquals(2, t.examples().size());
        assertEquals("./basalt predict 'add rax, rbx\nimul rax, rax'", t.examples().get(0).command());
        assertEquals(List.of("line one", "line two"), t.examples().get(0).expected());
        assertEquals(3, t.examples().get(0).line());
        assertEquals(1, t.examples().get(1).exitStatus());
        assertEquals(List.of(), t.examples().get(1).output());
        assertTrue(Transcript.matches(List.of("a", "...", "d"), List.of("a", "b", "c", "d")));
        assertTrue(Transcript.matches(List.of("a", "...", "d"), List.of("a", "d")));
        assertFalse(Transcript.matches(List.of("a", "...", "d"), List.of("a", "b")));
        assertTrue(Transcript.matches(List.of("took ... s"), List.of("took 1.5 s")));
        assertFalse(Transcript.matches(List.of("4.00 cycles"), List.of("4.01 cycles")));
        assertTrue(Transcript.open("./basalt predict 'add"));
        assertFalse(Transcript.open("./basalt predict 'add' \"x\""));
    }

    @TestFactory
    Stream<DynamicNode> everyExampleOfEveryPagePrintsWhatThePageShows(@TempDir Path work) throws IOException {
        List<DynamicNode> out = new ArrayList<>();
        Path launcher = launcher(work);
        int total = 0;
        for (Path page : pages()) {
            Transcript t = Transcript.parse(page, Files.readString(page));
            total += t.examples().size();
            if (t.examples().isEmpty()) {
                continue;
            }
            Path dir = Files.createDirectories(work.resolve(page.getFileName().toString().replace(".md", "")));
            Files.createSymbolicLink(dir.resolve("docs"), project().resolve("docs"));
            Files.createSymbolicLink(dir.resolve("basalt"), launcher);
            Map<Transcript.Example, List<String>> actual = new HashMap<>();
            List<DynamicNode> tests = new ArrayList<>();
            for (Transcript.Example e : t.examples()) {
                String name = project().relativize(page) + " line " + e.line() + ": $ "
                        + e.command().lines().findFirst().orElse("");
                tests.add(DynamicTest.dynamicTest(name, () -> run(page, dir, e, actual)));
            }
            if (Boolean.getBoolean("basalt.regenerate")) {
                tests.add(DynamicTest.dynamicTest("rewrite " + page.getFileName(), () -> rewrite(page, t, actual)));
            }
            out.add(DynamicContainer.dynamicContainer(project().relativize(page).toString(), tests));
        }
        assertTrue(total >= 10, "the README and guide show commands in ```console blocks; found " + total);
        return out.stream();
    }

    /** {@code basalt}: this build's command line, {@code basalt bulk} on Spark as the project's script runs it. */
    private static Path launcher(Path work) throws IOException {
        Path script = work.resolve("basalt-launcher");
        String cp = System.getProperty("java.class.path");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        StringBuilder opens = new StringBuilder();
        for (String p : List.of("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net", "java.nio",
                "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "sun.nio.ch", "sun.nio.cs",
                "sun.security.action", "sun.util.calendar")) {
            opens.append(" --add-opens=java.base/").append(p).append("=ALL-UNNAMED");
        }
        Files.writeString(script, "#!/bin/sh\n"
                + "if [ \"$1\" = bulk ]; then shift; exec '" + java + "'" + opens + " -cp '" + cp
                + "' dev.basalt.spark.BulkCommand \"$@\"; fi\n"
                + "exec '" + java + "' -XX:TieredStopAtLevel=1 -cp '" + cp + "' dev.basalt.cli.Basalt \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private static void run(Path page, Path dir, Transcript.Example e, Map<Transcript.Example, List<String>> actual)
            throws Exception {
        Path stdout = Files.createTempFile(dir, "stdout", ".txt");
        Path stderr = Files.createTempFile(dir, "stderr", ".txt");
        Process p = new ProcessBuilder("bash", "-c", "set -o pipefail\n" + e.command()).directory(dir.toFile())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        if (!p.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail(page.getFileName() + " line " + e.line() + ": did not finish in " + TIMEOUT_MINUTES + " minutes");
        }
        List<String> out = Files.readString(stdout, StandardCharsets.UTF_8).lines().toList();
        String err = Files.readString(stderr, StandardCharsets.UTF_8);
        Files.delete(stdout);
        Files.delete(stderr);
        List<String> shown = new ArrayList<>(out);
        if (p.exitValue() != 0) {
            shown.add("[exit " + p.exitValue() + "]");
        }
        actual.put(e, shown);
        String where = project().relativize(page) + " line " + e.line();
        assertEquals(e.exitStatus(), p.exitValue(), where + ": exit status of\n$ " + e.command() + "\nstderr:\n" + err
                + "stdout:\n" + String.join("\n", out));
        if (!Transcript.matches(e.output(), out)) {
            fail(where + ": the page shows (from line " + e.firstOutputLine() + "):\n" + String.join("\n", e.output())
                    + "\n--- the command printed:\n" + String.join("\n", out) + "\n--- stderr:\n" + err);
        }
    }

    /** The page with each example whose output changed showing what its command printed now. */
    private static void rewrite(Path page, Transcript t, Map<Transcript.Example, List<String>> actual)
            throws IOException {
        List<String> lines = new ArrayList<>(Files.readString(page).lines().toList());
        // From the last example up, so earlier line numbers stay right.
        for (int k = t.examples().size() - 1; k >= 0; k--) {
            Transcript.Example e = t.examples().get(k);
            List<String> now = actual.get(e);
            if (now == null) {
                continue;
            }
            boolean failed = !now.isEmpty() && Transcript.EXIT.matcher(now.get(now.size() - 1)).matches();
            List<String> stdout = failed ? now.subList(0, now.size() - 1) : now;
            int status = failed ? Integer.parseInt(now.get(now.size() - 1).replaceAll("\\D", "")) : 0;
            if (status == e.exitStatus() && Transcript.matches(e.output(), stdout)) {
                continue;  // kept as written, wildcards and all
            }
            int from = e.firstOutputLine() - 1;
            for (int n = 0; n < e.expected().size(); n++) {
                lines.remove(from);
            }
            // A line of the page with a wildcard that still matches the line at its place stays as written, so that
            // timings do not become fixed numbers.
            List<String> kept = new ArrayList<>(now);
            for (int n = 0; n < kept.size() && n < e.expected().size(); n++) {
                String old = e.expected().get(n);
                if (old.contains("...") && Transcript.line(old.stripTrailing(), kept.get(n).stripTrailing())) {
                    kept.set(n, old);
                }
            }
            lines.addAll(from, kept);
        }
        Path tmp = Files.createTempFile(page.getParent(), ".rewrite", ".md");
        Files.writeString(tmp, String.join("\n", lines) + "\n");
        Files.move(tmp, page, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}

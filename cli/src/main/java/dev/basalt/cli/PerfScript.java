package dev.basalt.cli;

import dev.basalt.decoder.ElfCode;
import dev.basalt.decoder.PerfSamples;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** A {@code perf.data} file read through {@code perf script --show-mmap-events}, its text streamed as it comes. */
final class PerfScript {

    private PerfScript() {
    }

    static PerfSamples.Counts read(Path data, Path file, ElfCode.Functions found) throws IOException {
        Process p;
        try {
            p = new ProcessBuilder("perf", "script", "--show-mmap-events", "-i", data.toString())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IOException(data + " is a perf.data file, and reading it needs perf (Debian: apt-get install "
                    + "linux-perf), which is not installed here; or pass the text of `perf script --show-mmap-events`");
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(),
                StandardCharsets.ISO_8859_1))) {
            return PerfSamples.read(in, data + " (through perf script)", file, found);
        } catch (IOException e) {
            int exit = end(p);
            throw exit > 0 ? new IOException(data + ": perf script could not read it (exit " + exit + ")") : e;
        } finally {
            end(p);
        }
    }

    /** Waits for perf to end (killing it after a minute); its exit code, or -1 when it had to be killed. */
    private static int end(Process p) {
        try {
            if (p.waitFor(60, TimeUnit.SECONDS)) {
                return p.exitValue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        p.destroyForcibly();
        return -1;
    }
}

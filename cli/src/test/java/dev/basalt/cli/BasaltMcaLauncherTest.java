package dev.basalt.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The {@code basalt-mca} launcher standing in for the llvm-mca binary, called by its path as Compiler Explorer's
 * llvm-mca tool and a Makefile call it. The launcher runs {@code basalt} beside it; here that {@code basalt} runs this
 * build's classes (the jar is made after the tests), so what is tested is the launcher itself — its arguments
 * passed through and llvm-mca's exit codes (0, or 1 for any failure) — over the real command.
 */
class BasaltMcaLauncherTest {

    private record Result(int exit, String out, String err) {
    }

    /** A folder with the repository's basalt-mca and a basalt that runs the test's class path. */
    private static Path launcher(Path dir) throws Exception {
        Path repo = Path.of("..").toAbsolutePath().normalize();
        Path mca = dir.resolve("basalt-mca");
        Files.copy(repo.resolve("basalt-mca"), mca);
        Path basalt = dir.resolve("basalt");
        Files.writeString(basalt, "#!/usr/bin/env bash\nexec '" + Path.of(System.getProperty("java.home"), "bin",
                "java") + "' -cp '" + System.getProperty("java.class.path") + "' dev.basalt.cli.Basalt \"$@\"\n");
        for (Path p : List.of(mca, basalt)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return mca;
    }

    private static Result run(Path dir, String stdin, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
        Process p = pb.start();
        if (stdin != null) {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        return new Result(p.exitValue(), out, err);
    }

    /**
     * As Compiler Explorer's llvm-mca tool (lib/tooling/llvm-mca-tool.ts) calls it: gcc's assembly for a loop, as the
     * compiler wrote it, rewritten as the tool rewrites it ({@code offset flat:} dropped) into a file; then
     * {@code -mtriple=} the compiler's target, {@code -march=} turned into {@code -mcpu=} (or {@code -mcpu=generic}),
     * the user's arguments, and the file. Text out, exit 0; a failure exits 1, as llvm-mca's do.
     */
    @Test
    void compilerExplorersCallAndAMakefilesCallWork(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("gcc"), "gcc is not installed");
        Path mca = launcher(dir);
        Path c = Files.writeString(dir.resolve("loop.c"),
                "float dot(const float *a, const float *b, long n) {\n  float s = 0;\n"
                        + "  for (long i = 0; i < n; i++) s += a[i] * b[i];\n  return s;\n}\n");
        for (String[] flags : new String[][] {{"-march=skylake"}, {"-masm=intel"}}) {
            List<String> gcc = new ArrayList<>(List.of("gcc", "-O2", "-S", "-o", "loop.s"));
            gcc.addAll(List.of(flags));
            gcc.add(c.toString());
            assertEquals(0, run(dir, null, gcc.toArray(String[]::new)).exit());
            String asm = Files.readString(dir.resolve("loop.s")).replaceAll("(?i)offset flat:", "");
            Path file = Files.writeString(dir.resolve("output.s.mca"), asm);
            String cpu = flags[0].startsWith("-march=") ? "-mcpu=" + flags[0].substring(7) : "-mcpu=generic";
            Result r = run(dir, null, mca.toString(), "-mtriple=x86_64-linux-gnu", cpu, "-timeline",
                    file.toString());
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().startsWith("Iterations:        100\n"), r.out());
            assertTrue(r.out().contains("Timeline view:") && r.out().contains("Basalt (not an llvm-mca view):"),
                    r.out());
        }
        // Assembly on standard input, as a script pipes it.
        Result piped = run(dir, "addq %rbx, %rax\nimulq %rax, %rax\n", mca.toString(), "-mcpu=skylake");
        assertEquals(0, piped.exit(), piped.err());
        assertTrue(piped.out().contains("Total Cycles:"), piped.out());
        // Failures exit 1, whatever basalt's own code: a CPU it does not model, -m32's i686, bad assembly.
        for (String[] bad : new String[][] {{"-mcpu=cortex-a53"}, {"-march=x86"}, {"-frobnicate"}}) {
            Result r = run(dir, "addq %rbx, %rax\n", mca.toString(), bad[0]);
            assertEquals(1, r.exit(), bad[0] + ": " + r.out());
            assertTrue(r.err().contains(bad[0].replaceAll("=.*", "")), r.err());
        }
        assertEquals(1, run(dir, "frob %rax\n", mca.toString()).exit());
        // A Makefile target that runs $(LLVM_MCA) on a file, with the launcher given by its path.
        Files.writeString(dir.resolve("Makefile"), "LLVM_MCA ?= llvm-mca\nmca: loop.s\n\t$(LLVM_MCA) -mcpu=haswell "
                + "-iterations=50 -o report.txt loop.s\n");
        Assumptions.assumeTrue(CliRun.onPath("make"), "make is not installed");
        Result make = run(dir, null, "make", "LLVM_MCA=" + mca, "mca");
        assertEquals(0, make.exit(), make.err());
        assertTrue(Files.readString(dir.resolve("report.txt")).startsWith("Iterations:        50\n"));
    }
}

package dev.basalt.cli;

import dev.basalt.measure.BlockMeasurement;
import dev.basalt.measure.MeasureConfig;
import dev.basalt.measure.Measurer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocks that fault, trap, hang, touch non-canonical, kernel or unmappable addresses, move rsp by megabytes or use
 * extensions no CPU here has, given to {@code basalt measure}: each must end as one clear error or refused row, the
 * command with exit 2, the JVM alive, and no file in the folder changed but the command's three outputs. A second
 * part gives the same kind of blocks to the child with the checks before execution turned off (a library switch the
 * command line does not have), to show what the child itself survives. The table is {@code docs/measure-hostile.md}:
 * this test renders it and fails when the committed file differs (the new one goes to
 * {@code cli/target/measure-hostile.md}); {@code -Dbasalt.regenerate=true} rewrites it in place.
 */
class MeasureHostileTest {

    private record Case(String what, String asm, String hex, String status, String says) {
    }

    private static final List<Case> COMMAND = List.of(
            new Case("kernel entry", "syscall", "0f05", "refused", "enters the kernel"),
            new Case("interrupt", "int 0x80", "cd80", "refused", "raises an interrupt"),
            new Case("breakpoint trap", "int3", "cc", "refused", "raises an interrupt"),
            new Case("undefined opcode", "ud2", "0f0b", "refused", "undefined opcode"),
            new Case("privileged", "hlt", "f4", "refused", "privileged"),
            new Case("port I/O", "in al, dx", "ec", "refused", "port I/O"),
            new Case("port I/O", "out dx, al", "ee", "refused", "port I/O"),
            new Case("privileged", "cli", "fa", "refused", "privileged"),
            new Case("privileged (MSR)", "rdmsr", "0f32", "refused", "system or privileged"),
            new Case("privileged (control register)", "mov rax, cr0", "0f20c0", "refused", "privileged"),
            new Case("privileged (descriptor table)", "lgdt [rax]", "0f0110", "refused", "system or privileged"),
            new Case("indirect call", "call rax", "ffd0", "refused", "transfers control"),
            new Case("indirect jump", "jmp rax; nop", "ffe090", "refused", "indirect or far"),
            new Case("return", "ret", "c3", "refused", "transfers control"),
            new Case("far jump", "ljmp [rax]", "48ff28", "refused", "indirect or far"),
            new Case("branch inside the block", "jmp .+2; nop", "eb0090", "refused", "before the end"),
            new Case("only a branch", "jmp .+2", "eb00", "refused", "nothing to run"),
            new Case("harness thread state", "wrfsbase rax", "f3480faed0", "refused", "fs base"),
            new Case("segment register", "mov fs, ax", "668ee0", "refused", "segment register"),
            new Case("performance counter", "rdpmc", "0f33", "refused", "performance counter"),
            new Case("wait", "mwait", "0f01c9", "refused", "waits"),
            new Case("absent extension (FMA4)", "vfmaddps xmm0, xmm1, xmm2, xmm3", "c4e3f168c320", "refused",
                    "fma4"),
            new Case("absent extension (XOP)", "vprotb xmm0, xmm1, xmm2", "8fe96890c1", "refused", "xop"),
            new Case("absent extension (TBM)", "blcfill rax, rbx", "8fe9f801cb", "refused", "tbm"),
            new Case("no permission (AMX)", "tilezero tmm0", "c4e27b49c0", "refused", "amx_tile"),
            new Case("rsp moved by 16 MB", "sub rsp, 0x1000000", "4881ec00000001", "refused", "stack window"),
            new Case("rsp set far away", "movabs rsp, 0x7fff00000000", "48bc00000000ff7f0000", "refused",
                    "stack window"),
            new Case("not x86 (does not decode)", "(bytes 0f ff)", "0fff", "refused", "does not decode"),
            new Case("division by zero", "xor ecx, ecx; div rcx", "31c948f7f1", "error", "divide error"),
            new Case("quotient overflow", "div rcx", "48f7f1", "error", "divide error"),
            new Case("non-canonical address", "shl rax, 40; mov rbx, [rax]", "48c1e028488b18", "error",
                    "general-protection"),
            new Case("kernel address", "movabs rax, 0xffffffff81000000; mov rbx, [rax]",
                    "48b800000081ffffffff488b18", "error", "kernel address"),
            new Case("null pointer", "xor eax, eax; mov rbx, [rax]", "31c0488b18", "error", "lowest mappable"),
            new Case("low absolute address", "mov rbx, [0x1000]", "488b1c2500100000", "error", "lowest mappable"),
            new Case("misaligned SSE operand", "movaps xmm0, [rax+1]", "0f284001", "error", "misaligned"),
            new Case("thousands of pages", "mov [rax], rbx; add rax, 0x1000; mov [rax+0x800000], rbx",
                    "48891848050010000048899800008000", "error", "pages"),
            new Case("write to its own code", "mov [rip], eax", "890500000000", "error", "harness's own"),
            new Case("rsp to zero, then a push", "xor esp, esp; push rax", "31e450", "error", "kernel address"));

    /** Given to the child with the checks off: what the isolation alone must survive. */
    private static final List<Case> CHILD = List.of(
            new Case("endless loop", "jmp $ (inside the block)", "ebfe90", "error", "time limit"),
            new Case("breakpoint trap", "int3", "cc", "error", "debug trap"),
            new Case("undefined opcode", "ud2", "0f0b", "error", "illegal instruction"),
            new Case("kernel entry (outside the filter)", "syscall", "0f05", "error", "SIGSYS"),
            new Case("privileged", "hlt", "f4", "error", "general-protection"),
            new Case("port I/O", "in al, dx", "ec", "error", "general-protection"),
            new Case("return into data", "ret", "c3", "error", "no code to run"),
            new Case("indirect jump into data", "jmp rax; nop", "ffe090", "error", "no code to run"));

    private static boolean canMeasure() {
        return System.getProperty("os.arch", "").matches("amd64|x86_64")
                && System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux");
    }

    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    /**
     * A message for the table: an address in the harness's timed code (from {@code CODE_BASE}, 0x3f0000000000) as
     * {@code 0x3f00…} — a block's place there differs between hosts (0x3f0003000213 on a Zen 4 guest, 0x3f0003000193
     * on a Zen 1 one), and the committed table must be the same on every host; pipes escaped.
     */
    private static String hostFree(String message) {
        return message.replaceAll("0x3f00[0-9a-f]{8}\\b", "0x3f00…").replace("|", "\\|");
    }

    /**
     * {@code basalt measure} with {@code args}, once more (at most three runs) when it refused because the host's
     * clock check failed: a busy or noisy VM misses the check's 2% now and then, before any block is looked at, and
     * this test is about the blocks; after three refusals the test is skipped with the check's message.
     */
    private static CliRun measure(String... args) throws Exception {
        String[] all = new String[args.length + 1];
        all[0] = "measure";
        System.arraycopy(args, 0, all, 1, args.length);
        CliRun r = CliRun.of(all);
        for (int tries = 1; tries < 3 && clockRefused(r); tries++) {
            System.err.println("clock check failed, measuring again: " + r.err().strip());
            r = CliRun.of(all);
        }
        // A host that fails the check three times running cannot measure at all: skipped, saying why.
        Assumptions.assumeFalse(clockRefused(r), "this host fails basalt measure's clock check: " + r.err().strip());
        return r;
    }

    private static boolean clockRefused(CliRun r) {
        return r.exit() == Basalt.EXIT_ERROR && r.err().contains("clock check failed");
    }

    @Test
    void everyHostileBlockIsOneClearRowAndNothingElseChanges(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(canMeasure(), "basalt measure runs on x86-64 Linux only");
        Path canary = dir.resolve("canary.txt");
        Files.writeString(canary, "unchanged\n");
        List<String> before = listing(dir);
        List<String> problems = new ArrayList<>();
        StringBuilder rows = new StringBuilder();
        Path out = dir.resolve("m.csv");
        for (Case c : COMMAND) {
            CliRun r = measure("--jobs", "1", "--time-limit", "5", "--format", "csv", "--out", out.toString(),
                    c.hex());
            String row = r.out().lines().skip(1).findFirst().orElse("");
            List<String> cells = row.isEmpty() ? List.of() : org.apache.commons.csv.CSVParser.parse(row,
                    org.apache.commons.csv.CSVFormat.DEFAULT).getRecords().get(0).toList();
            String message = cells.isEmpty() ? "" : cells.get(cells.size() - 1);
            String where = c.what() + " (" + c.hex() + "): ";
            if (r.exit() != Basalt.EXIT_BAD_INPUT) {
                problems.add(where + "exit " + r.exit() + ": " + r.err().strip());
            }
            if (!row.startsWith(c.hex() + "," + c.status() + ",")) {
                problems.add(where + "row " + row + ", expected status " + c.status());
            }
            if (!row.contains(c.says())) {
                problems.add(where + "row does not say '" + c.says() + "': " + row);
            }
            List<String> after = listing(dir);
            List<String> expected = new ArrayList<>(before);
            expected.addAll(List.of("m.csv", "m.csv.blocks.csv", "m.csv.meta.json"));
            if (!after.equals(expected.stream().sorted().toList())) {
                problems.add(where + "files: " + after);
            }
            if (!Files.readString(canary).equals("unchanged\n")) {
                problems.add(where + "changed a file that is not its output");
            }
            rows.append(String.format(Locale.ROOT, "| %s | `%s` | `%s` | %d | %s | %s |%n", c.what(), c.asm(),
                    c.hex(), r.exit(), c.status(), hostFree(message)));
            for (String f : List.of("m.csv", "m.csv.blocks.csv", "m.csv.meta.json")) {
                Files.deleteIfExists(dir.resolve(f));
            }
        }
        // The JVM is alive and measures again: a good block after all of them.
        CliRun good = measure("--jobs", "1", "--out", out.toString(), "4801d8");
        assertEquals(0, good.exit(), good.err());
        StringBuilder child = new StringBuilder();
        MeasureConfig unchecked = MeasureConfig.defaults().withJobs(1).withStaticChecks(false).withTimeLimitSeconds(2);
        try (Measurer m = new Measurer(unchecked)) {
            for (Case c : CHILD) {
                BlockMeasurement b = m.measure(c.hex());
                String where = "unchecked " + c.what() + " (" + c.hex() + "): ";
                if (!b.status().label().equals(c.status()) || !b.message().contains(c.says())) {
                    problems.add(where + b.status().label() + ": " + b.message());
                }
                child.append(String.format(Locale.ROOT, "| %s | `%s` | `%s` | %s | %s |%n", c.what(), c.asm(),
                        c.hex(), b.status().label(), hostFree(b.message())));
            }
            BlockMeasurement after = m.measure("4801d8");
            assertEquals(BlockMeasurement.Status.OK, after.status(), after.message());
            assertTrue(Math.abs(after.cycles() - 1) < 0.03, "the child measures again after them: " + after);
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        String markdown = markdown(rows.toString(), child.toString());
        Path project = Path.of(System.getProperty("basalt.project.dir", ".."));
        Path committed = project.resolve("docs").resolve("measure-hostile.md");
        if (Boolean.getBoolean("basalt.regenerate")) {
            Files.writeString(committed, markdown);
        }
        Path fresh = project.resolve("cli").resolve("target").resolve("measure-hostile.md");
        Files.createDirectories(fresh.getParent());
        Files.writeString(fresh, markdown);
        String current = Files.exists(committed) ? Files.readString(committed) : "";
        assertEquals(current, markdown, "docs/measure-hostile.md is not what basalt measure says now: the new table is "
                + fresh + "; copy it over, or run this test with -Dbasalt.regenerate=true");
    }

    private static String markdown(String rows, String child) {
        return "# Hostile blocks: what `basalt measure` does with them\n\n"
                + "<!-- Generated by cli/src/test/java/dev/basalt/cli/MeasureHostileTest.java; do not edit by hand. -->\n"
                + "Generated by `MeasureHostileTest` (module `cli`), which runs every block below and fails when this "
                + "file differs from what happens now (the new table goes to `cli/target/measure-hostile.md`). To "
                + "regenerate it in place:\n\n"
                + "```sh\nmvn -B -o -q test -pl cli -am -Dtest=MeasureHostileTest -Dsurefire.failIfNoSpecifiedTests=false "
                + "-Dbasalt.regenerate=true\n```\n\n"
                + "`basalt measure` executes the blocks it is given, so it checks each before running it and runs it "
                + "only in a child process. Exit status: 0 when every block was measured; 2 when any block was "
                + "refused or failed (its row says why; the other blocks are still measured); 1 when the harness "
                + "cannot run at all. For every block below the test also checks that the JVM goes on (a normal "
                + "block is measured after them all), and that the folder holds only the command's three outputs "
                + "and an unchanged file of its own.\n\n"
                + "## Through the command (checks before execution on)\n\n"
                + "`basalt measure --jobs 1 --time-limit 5 --format csv --out $DIR/m.csv HEX`, one block at a time.\n\n"
                + "| block | assembly | hex | exit | status | message (the row's last column) |\n"
                + "|---|---|---|---:|---|---|\n" + rows
                + "\n## In the child alone (checks before execution off)\n\n"
                + "The same kind of blocks given to the child as they are (`MeasureConfig.withStaticChecks(false)`, a "
                + "library switch for this test; the command has none), with a 2-second time limit: the child dies or "
                + "answers, the block gets an error row, the next block gets a new child.\n\n"
                + "| block | assembly | hex | status | message |\n|---|---|---|---|---|\n" + child;
    }
}

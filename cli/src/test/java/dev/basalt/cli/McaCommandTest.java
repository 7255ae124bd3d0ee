package dev.basalt.cli;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt mca}: llvm-mca's command line, and its views' layout with Basalt's numbers. */
class McaCommandTest {

    /** A gcc loop in AT&T with two llvm-mca regions, and the same code without markers. */
    private static final String REGIONS = String.join("\n",
            "# LLVM-MCA-BEGIN sum",
            ".L3:",
            "\taddq\t(%rsi), %rax",
            "\taddq\t$8, %rsi",
            "\tdecq\t%rcx",
            "\tjne\t.L3",
            "# LLVM-MCA-END",
            "# LLVM-MCA-BEGIN chain",
            "\timulq\t%rax, %rax",
            "\taddq\t%rbx, %rax",
            "# LLVM-MCA-END", "");
    private static final String PLAIN = "\tmovl\t(%rdi), %eax\n\taddl\t%eax, %edx\n\tlock addq $1, (%rsi)\n";

    private static String llvmMca(Path input, String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("llvm-mca-19"));
        cmd.addAll(List.of(options));
        cmd.add(input.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void theSectionsAreLlvmMcasForTheSameOptions(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("llvm-mca-19"), "llvm-mca-19 is not installed (apt-get install llvm-19)");
        Path regions = Files.writeString(dir.resolve("regions.s"), REGIONS);
        Path plain = Files.writeString(dir.resolve("plain.s"), PLAIN);
        String[][] optionSets = {{"-mcpu=skylake"}, {"-mcpu=haswell", "-iterations=300"},
            {"--mcpu", "ivybridge", "-resource-pressure=false"}, {"-mcpu=skylake", "-instruction-info=0"},
            {"-mtriple=x86_64-unknown-linux-gnu", "-mcpu=skylake", "-summary-view=false"},
            {"-mcpu=skylake", "-timeline", "-timeline-max-iterations=3", "-resource-pressure=false"},
            {"-mcpu=skylake", "-all-stats"}, {"-mcpu=haswell", "-bottleneck-analysis"}, {"-mcpu=skylake", "-all-views"},
            {"-mcpu=haswell", "-dispatch-stats", "-register-file-stats", "-resource-pressure=false"},
            {"-mcpu=ivybridge", "-scheduler-stats", "-retire-stats", "-instruction-info=false"},
            {"-mcpu=skylake", "-all-views", "-timeline=false", "-summary-view=false"}};
        for (Path input : List.of(regions, plain)) {
            for (String[] options : optionSets) {
                String expected = llvmMca(input, options);
                List<String> args = new ArrayList<>(List.of("mca"));
                args.addAll(List.of(options));
                args.add(input.toString());
                CliRun run = CliRun.of(args.toArray(String[]::new));
                assertEquals(0, run.exit(), run.err());
                assertEquals(McaSections.of(expected), McaSections.of(run.out()), String.join(" ", options) + " on " + input);
                // One instruction-info row per instruction of each region, as llvm-mca prints.
                assertEquals(expected.lines().filter(l -> l.matches(" \\d+ .*")).count(),
                        run.out().lines().filter(l -> l.matches(" \\d+ .*")).count(), run.out());
            }
        }
    }

    @Test
    void basaltsNumbersAndItsOwnSectionFollow(@TempDir Path dir) throws Exception {
        Path regions = Files.writeString(dir.resolve("regions.s"), REGIONS);
        CliRun run = CliRun.of("mca", "-mcpu=skylake", "-iterations=100", regions.toString());
        assertEquals(0, run.exit(), run.err());
        // The loop region runs as a loop, 1.24 cycles an iteration on Skylake (PortBindingLoopTest): its total
        // cycles are those of 100 iterations, and its IPC the four instructions over them.
        String loop = run.out().substring(run.out().indexOf("[0] Code Region - sum"),
                run.out().indexOf("[1] Code Region - chain"));
        long total = Long.parseLong(loop.replaceAll("(?s).*Total Cycles:\\s+(\\d+).*", "$1"));
        assertTrue(total >= 100 && total <= 160, loop);
        assertTrue(loop.contains("addq\t(%rsi), %rax"), "the source's own AT&T text: " + loop);
        assertTrue(loop.contains("Basalt (not an llvm-mca view):") && loop.contains("(loop)"), loop);
        // The chain region: imul (3) + add (1) a round, as its bottleneck says.
        String chain = run.out().substring(run.out().indexOf("[1] Code Region - chain"));
        assertTrue(chain.contains("Cycles per iteration: 4.00"), chain);
        // Intel syntax when asked, as llvm-mca's -output-asm-variant=1.
        CliRun intel = CliRun.of("mca", "-mcpu=skylake", "-output-asm-variant=1", regions.toString());
        assertTrue(intel.out().contains("add rax, qword ptr [rsi]"), intel.out());
    }

    @Test
    void optionsItDoesNotServeAreRefusedByName(@TempDir Path dir) throws Exception {
        Path plain = Files.writeString(dir.resolve("plain.s"), PLAIN);
        String[][] refused = {{"-show-encoding", "-show-encoding"}, {"-lqueue=10", "-lqueue"},
            {"-mattr=+avx2", "-mattr"},
            {"-frobnicate", "unknown option '-frobnicate'"}, {"-mcpu=cortex-a53", "-mcpu=cortex-a53"},
            {"-mtriple=aarch64-linux-gnu", "x86-64 only"}, {"-iterations=ten", "-iterations=ten"}};
        for (String[] r : refused) {
            CliRun run = CliRun.of("mca", r[0], plain.toString());
            assertEquals(2, run.exit(), r[0] + ": " + run.out());
            assertTrue(run.err().contains(r[1]), r[0] + ": " + run.err());
            assertEquals("", run.out(), r[0]);
        }
        CliRun two = CliRun.of("mca", plain.toString(), plain.toString());
        assertEquals(2, two.exit());
        CliRun bad = CliRun.of("mca", Files.writeString(dir.resolve("bad.s"), "frob %rax\n").toString());
        assertEquals(2, bad.exit(), bad.out());
        assertTrue(bad.err().contains("bad.s"), bad.err());
    }

    /** The keys of a JSON object, sorted, for comparing structure. */
    private static java.util.TreeSet<String> keys(com.fasterxml.jackson.databind.JsonNode n) {
        java.util.TreeSet<String> out = new java.util.TreeSet<>();
        n.fieldNames().forEachRemaining(out::add);
        return out;
    }

    @Test
    void jsonHasLlvmMcasStructure(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(CliRun.onPath("llvm-mca-19"), "llvm-mca-19 is not installed (apt-get install llvm-19)");
        Path regions = Files.writeString(dir.resolve("regions.s"), REGIONS);
        String[] options = {"-mcpu=skylake", "-json", "-timeline", "-iterations=10", "-all-stats"};
        com.fasterxml.jackson.databind.ObjectMapper mapper = new com.fasterxml.jackson.databind.ObjectMapper();
        com.fasterxml.jackson.databind.JsonNode expected = mapper.readTree(llvmMca(regions, options));
        List<String> args = new ArrayList<>(List.of("mca"));
        args.addAll(List.of(options));
        args.add(regions.toString());
        CliRun run = CliRun.of(args.toArray(String[]::new));
        assertEquals(0, run.exit(), run.err());
        com.fasterxml.jackson.databind.JsonNode got = mapper.readTree(run.out());
        assertEquals(keys(expected), keys(got));
        assertEquals(expected.get("CodeRegions").size(), got.get("CodeRegions").size());
        for (int k = 0; k < got.get("CodeRegions").size(); k++) {
            com.fasterxml.jackson.databind.JsonNode e = expected.get("CodeRegions").get(k);
            com.fasterxml.jackson.databind.JsonNode g = got.get("CodeRegions").get(k);
            java.util.TreeSet<String> basalt = keys(g);
            assertTrue(basalt.remove("Basalt"), "Basalt's own object: " + basalt);
            assertEquals(keys(e), basalt);
            assertEquals(e.get("Name"), g.get("Name"));
            assertEquals(keys(e.get("SummaryView")), keys(g.get("SummaryView")));
            assertEquals(keys(e.get("InstructionInfoView").get("InstructionList").get(0)),
                    keys(g.get("InstructionInfoView").get("InstructionList").get(0)));
            assertEquals(e.get("Instructions").size(), g.get("Instructions").size());
            java.util.TreeSet<String> timeline = keys(e.get("TimelineView").get("TimelineInfo").get(0));
            timeline.remove("CycleReady"); // not kept by the simulator: left out
            assertEquals(timeline, keys(g.get("TimelineView").get("TimelineInfo").get(0)));
        }
        assertEquals(keys(expected.get("TargetInfo")), keys(got.get("TargetInfo")));
    }

    /**
     * The statistics count a run of every iteration: the dispatch histogram's cycles add up to the run's cycles,
     * close to the summary's total (a run that finds its steady state extrapolates it); the retire histogram's
     * instructions to the iterations' instructions; the stall and queue figures stay within the machine's sizes.
     */
    @Test
    void statisticsCountEveryIteration(@TempDir Path dir) throws Exception {
        Path regions = Files.writeString(dir.resolve("regions.s"), REGIONS);
        CliRun run = CliRun.of("mca", "-mcpu=skylake", "-iterations=200", "-all-stats", "-bottleneck-analysis",
                regions.toString());
        assertEquals(0, run.exit(), run.err());
        String chain = run.out().substring(run.out().indexOf("[1] Code Region - chain"));
        long total = Long.parseLong(chain.replaceAll("(?s).*Total Cycles:\\s+(\\d+).*", "$1"));
        long cycles = 0;
        String dispatch = chain.substring(chain.indexOf("Dispatch Logic"), chain.indexOf("Schedulers - "));
        for (String line : dispatch.lines().filter(l -> l.matches(" \\d+,\\s+\\d+.*")).toList()) {
            cycles += Long.parseLong(line.trim().split("[,\\s]+")[1]);
        }
        assertTrue(Math.abs(cycles - total) <= 0.02 * total + 2, cycles + " cycles counted, summary " + total);
        String retire = chain.substring(chain.indexOf("Retire Control Unit"), chain.indexOf("Total ROB Entries"));
        long instructions = 0;
        for (String line : retire.lines().filter(l -> l.matches(" \\d+,\\s+\\d+.*")).toList()) {
            String[] f = line.trim().split("[,\\s]+");
            instructions += Long.parseLong(f[0]) * Long.parseLong(f[1]);
        }
        assertEquals(2 * 200, instructions, retire);
        // imul then add through rax: a chain of 4 cycles an iteration, which fills the scheduler, then the
        // reorder buffer (224 entries on Skylake); the bottleneck view names the register chain.
        assertTrue(chain.contains("- Register Dependencies [ ") && chain.contains("## REGISTER dependency:  rax"),
                chain);
        assertTrue(chain.contains("Total number of mappings created:    800"), "two registers and the flags: "
                + chain);
        com.fasterxml.jackson.databind.JsonNode json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                CliRun.of("mca", "-mcpu=skylake", "-json", "-dispatch-stats", regions.toString()).out());
        assertEquals(java.util.Set.of("GROUP", "LQ", "RAT", "RCU", "SCHEDQ", "SQ", "USH"),
                keys(json.get("CodeRegions").get(1).get("DispatchStatistics")));
        CliRun big = CliRun.of("mca", "-all-stats", "-iterations=100000", Files.writeString(dir.resolve("big.s"),
                "addq %rax, %rbx\n".repeat(30)).toString());
        assertEquals(2, big.exit(), big.out());
        assertTrue(big.err().contains("-iterations=100000"), big.err());
    }

    @Test
    void minusOWritesTheFileWhole(@TempDir Path dir) throws Exception {
        Path plain = Files.writeString(dir.resolve("plain.s"), PLAIN);
        Path out = dir.resolve("report.txt");
        CliRun run = CliRun.of("mca", "-mcpu", "haswell", "-o", out.toString(), plain.toString());
        assertEquals(0, run.exit(), run.err());
        assertEquals("", run.out());
        assertTrue(Files.readString(out).startsWith("Iterations:        100\n"), Files.readString(out));
    }
}

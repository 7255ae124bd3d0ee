package dev.basalt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code basalt simulate}: a hand-checkable block, and user errors that are exit 2 with one line naming the option. */
class SimulateCommandTest {

    @Test
    void aDependencyChainOfThreeImulsTakesNineCyclesAnIteration() {
        // imul rax, rax (3 cycles on every Intel table) three times on one register: a 9-cycle loop-carried chain.
        CliRun r = CliRun.of("simulate", "--mcpu", "haswell", "--untuned", "480fafc0480fafc0480fafc0");
        assertEquals(0, r.exit(), r.err());
        // 9 per iteration plus the pipeline's fill and drain spread over the 100 iterations.
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("haswell: ([0-9.]+) cycles/iteration").matcher(r.out());
        assertTrue(m.find(), r.out());
        double cycles = Double.parseDouble(m.group(1));
        assertTrue(cycles >= 9.0 && cycles <= 9.1, r.out());
        assertTrue(r.out().contains("them): 1=3.00\n"), "the three imuls use port 1, and only it: " + r.out());
        assertTrue(r.out().contains("bottleneck: dependency chain: 9.00 of 9.0"), r.out());
    }

    @Test
    void eachSwitchTurnsItsMechanismOffAndTheBoundsSayWhereTheCyclesGo() {
        // add ax, 0x1234; dec r15: predecoder-bound (a length-changing prefix each iteration, 3 + 7/16 cycles).
        CliRun full = CliRun.of("simulate", "--mcpu", "haswell", "--untuned", "--timeline", "6605341249ffcf");
        assertEquals(0, full.exit(), full.err());
        assertTrue(full.out().contains("3.44 cycles/iteration"), full.out());
        assertTrue(full.out().contains("bottleneck: front end: predecoder 3.44 of 3.44"), full.out());
        assertTrue(full.out().contains("bounds (cycles/iteration): predecoder: 3.44 · decoders: 0.50 · issue: 0.50"),
                full.out());
        assertTrue(full.out().contains("predecode  decode  issue  dispatch  done  retire"), full.out());
        CliRun simple = CliRun.of("simulate", "--mcpu", "haswell", "--untuned", "--simple-front-end", "6605341249ffcf");
        assertTrue(simple.out().contains("1.00 cycles/iteration"), simple.out());
        // mov [rsp+8], rax; mov rax, [rsp+8]: forwarding 5 cycles an iteration, 6 without.
        CliRun forwarded = CliRun.of("simulate", "--mcpu", "haswell", "--untuned", "4889442408488b442408");
        CliRun waited = CliRun.of("simulate", "--mcpu", "haswell", "--untuned", "--no-store-forwarding",
                "4889442408488b442408");
        assertTrue(forwarded.out().contains("5.00 cycles/iteration"), forwarded.out());
        assertTrue(waited.out().contains("6.00 cycles/iteration"), waited.out());
        // The llvm-mca-compatible machine has no front end to turn off.
        CliRun both = CliRun.of("simulate", "--mcpu", "haswell", "--llvm-mca-compatible", "--simple-front-end", "4889de");
        assertEquals(2, both.exit());
        assertEquals("basalt simulate: --llvm-mca-compatible turns every mechanism off; drop --simple-front-end",
                both.err().lines().findFirst().orElse(""));
    }

    @Test
    void badValuesAreExitTwoNamingTheOption(@TempDir Path dir) throws Exception {
        CliRun iterations = CliRun.of("simulate", "--mcpu", "haswell", "--iterations", "0", "4889de");
        assertEquals(2, iterations.exit());
        assertTrue(iterations.err().startsWith("basalt simulate: --iterations: iterations must be in 1..100000"),
                iterations.err());
        assertEquals(1, iterations.err().lines().count(), iterations.err());

        Path notATable = dir.resolve("table.json");
        Files.writeString(notATable, "{\"hello\": 1}");
        CliRun params = CliRun.of("simulate", "--params", notATable.toString(), "4889de");
        assertEquals(2, params.exit());
        assertTrue(params.err().startsWith("basalt simulate: --params " + notATable), params.err());

        CliRun cpu = CliRun.of("simulate", "--mcpu", "pentium", "4889de");
        assertEquals(2, cpu.exit());
        assertTrue(cpu.err().startsWith("basalt simulate: Invalid value for option '--mcpu'"), cpu.err());
    }

    @Test
    void decodeSimulateAndExplainReadBlocksFromAFileOrStandardInput(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("blocks.csv");
        Files.writeString(file, "4801d8,100\n\n4889de4889c24c89ff,200\n");
        CliRun decode = CliRun.of("decode", "--input", file.toString());
        assertEquals(0, decode.exit(), decode.err());
        assertTrue(decode.out().contains("block 4801d8:") && decode.out().contains("block 4889de4889c24c89ff:"),
                decode.out());
        CliRun both = CliRun.of("simulate", "--mcpu", "haswell", "4883c001", "--input", file.toString());
        assertEquals(0, both.exit(), both.err());
        assertEquals(3, both.out().lines().filter(l -> l.startsWith("block ")).count(), "arguments, then the file");
        java.io.InputStream saved = System.in;
        CliRun piped;
        try {
            System.setIn(new java.io.ByteArrayInputStream("4801d8\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
            piped = CliRun.of("explain", "--mcpu", "haswell", "--model", "simulator", "--method", "anchors", "--coverage-samples", "200",
                    "--input", "-");
        } finally {
            System.setIn(saved);
        }
        assertEquals(0, piped.exit(), piped.err());
        assertTrue(piped.out().startsWith("simulator on haswell: 1.00 cycles/iteration"), piped.out());
        CliRun two = CliRun.of("explain", "--mcpu", "haswell", "--model", "simulator", "--input", file.toString());
        assertEquals(2, two.exit());
        assertTrue(two.err().contains("explain takes one block: 2 were given"), two.err());
        CliRun none = CliRun.of("simulate", "--mcpu", "haswell");
        assertEquals(2, none.exit());
        assertTrue(none.err().contains("no blocks: give hex arguments or --input FILE"), none.err());
        CliRun folder = CliRun.of("decode", "--input", dir.toString());
        assertEquals(2, folder.exit());
        assertTrue(folder.err().contains("--input " + dir + " is a directory"), folder.err());
    }

    @Test
    void simulateTakesACommaListOfCpusAndNotesWhatItDoesNotModel() {
        CliRun r = CliRun.of("simulate", "--mcpu", "haswell,skylake", "4801d8", "0f0b");
        assertEquals(0, r.exit(), r.err());
        java.util.List<String> heads = r.out().lines().filter(l -> l.startsWith("block ")).toList();
        assertEquals(java.util.List.of("block 4801d8 on haswell", "block 4801d8 on skylake", "block 0f0b on haswell",
                "block 0f0b on skylake"), heads.stream().map(l -> l.substring(0, l.indexOf(':'))).toList());
        assertTrue(r.out().contains("  note: instruction 0 (ud2) is an undefined opcode"), r.out());
        CliRun params = CliRun.of("simulate", "--mcpu", "haswell,skylake", "--params", "x.json", "4801d8");
        assertEquals(2, params.exit());
        assertTrue(params.err().contains("--params is one CPU's table: give one --mcpu with it"), params.err());
    }

    @Test
    void aLoopSaysItsModeSourceAndFusedPairsAndModeLoopRefusesAStraightBlock() throws Exception {
        // add rax, rbx; add rcx, rbx; dec rdx; jnz back: a loop; dec and jnz fuse.
        String loop = "4801d84801d948ffca75f5";
        CliRun skl = CliRun.of("simulate", "--mcpu", "skylake", "--timeline", loop);
        assertEquals(0, skl.exit(), skl.err());
        assertTrue(skl.out().contains("\n  mode: loop, micro-ops from the micro-op cache (dsb); macro-fused 2+3; distinct "
                + "memory\n"),
                skl.out());
        assertTrue(skl.out().contains("(macro-fused with 2)"), "the timeline marks the fused jump: " + skl.out());
        CliRun hsw = CliRun.of("simulate", "--mcpu", "haswell", loop);
        assertTrue(hsw.out().contains("mode: loop, micro-ops from the loop stream detector (lsd)"), hsw.out());
        CliRun unrolled = CliRun.of("simulate", "--mcpu", "skylake", "--mode", "unroll", loop);
        assertTrue(unrolled.out().contains("mode: unrolled (straight-line code); macro-fused 2+3; harness memory"),
                unrolled.out());
        // --mode loop on a block that does not end in a jump: an error for that block, the others go on.
        CliRun refused = CliRun.of("simulate", "--mcpu", "skylake", "--mode", "loop", "4801d8", loop);
        assertEquals(2, refused.exit());
        assertTrue(refused.err().contains("input 1 '4801d8': --mode loop: the block does not end in a jump back to "
                + "its start"), refused.err());
        assertTrue(refused.out().contains("block " + loop + " on skylake"), refused.out());
        CliRun bad = CliRun.of("simulate", "--mcpu", "haswell", "--mode", "sideways", loop);
        assertEquals(2, bad.exit());
        assertTrue(bad.err().contains("'sideways' is not a mode: use auto, loop or unroll"), bad.err());
        // predict: json names mode, source and pairs; a model without loop mode refuses --mode.
        com.fasterxml.jackson.databind.JsonNode n = new com.fasterxml.jackson.databind.ObjectMapper().readTree(
                CliRun.of("predict", "--model", "bounds", "--mcpu", "skylake", "--format", "json", loop).out()).get(0);
        assertEquals("loop", n.get("mode").asText());
        assertEquals("dsb", n.get("uop_source").asText());
        assertEquals("[[2,3]]", n.get("fused_pairs").toString());
        CliRun llvm = CliRun.of("predict", "--model", "simulator-default", "--mode", "unroll", loop);
        assertEquals(0, llvm.exit(), "the llvm-mca-like machine takes the mode and has no front end: " + llvm.err());
    }

    /** {@code --format json}: the text's figures as snake_case keys, and an error object for a block refused. */
    @Test
    void jsonSaysWhatTheTextSays() throws Exception {
        String loop = "4803074883c7084839d775f4"; // gcc's sum loop: add [rdi]; add rdi, 8; cmp; jne
        CliRun text = CliRun.of("simulate", "--mcpu", "haswell", loop);
        CliRun json = CliRun.of("simulate", "--format", "json", "--mcpu", "haswell,ivybridge", loop, "c5f5fec2");
        assertEquals(2, json.exit(), json.err()); // vpaddd ymm is not Ivy Bridge's
        com.fasterxml.jackson.databind.JsonNode rows = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(json.out());
        assertEquals(4, rows.size(), json.out());
        com.fasterxml.jackson.databind.JsonNode hsw = rows.get(0);
        assertEquals("haswell", hsw.get("mcpu").asText());
        assertTrue(text.out().startsWith(String.format(java.util.Locale.ROOT, "block %s on haswell: %.2f cycles/iteration",
                loop, hsw.get("cycles_per_iteration").asDouble())), text.out());
        assertEquals("loop", hsw.get("mode").asText());
        assertEquals("[[2,3]]", hsw.get("fused_pairs").toString(), "cmp/jne fuse");
        assertEquals(4, hsw.get("instructions").size());
        assertEquals("latency", hsw.get("bounds").get("winner").asText());
        assertTrue(hsw.get("port_cycles").has("6"));
        assertEquals("c5f5fec2", rows.get(3).get("hex").asText());
        assertTrue(rows.get(3).get("error").asText().contains("is not an instruction of ivybridge"), rows.toString());
        CliRun csv = CliRun.of("simulate", "--mcpu", "haswell,ivybridge", "--format", "csv", loop, "c5f5fec2");
        assertEquals(2, csv.exit(), "the AVX2 block cannot run on Ivy Bridge");
        List<String> lines = csv.out().lines().toList();
        assertEquals("hex,mcpu,table,cycles_per_iteration,total_cycles,iterations,mode,memory,predecoder,decoders,"
                + "delivery,issue,ports,latency,bound_winner,note,error,source,input", lines.get(0));
        String[] first = lines.get(1).split(",", -1);
        assertEquals(lines.get(0).split(",").length, first.length);
        assertEquals(hsw.get("cycles_per_iteration").asDouble(), Double.parseDouble(first[3]), 1e-4);
        assertEquals("loop", first[6]);
        assertEquals("distinct", first[7], "a loop's memory is distinct by default");
        assertEquals("latency", first[14]);
        String[] refused = lines.get(4).split(",", -1);
        assertEquals("c5f5fec2", refused[0]);
        assertEquals("", refused[3], "an error row's numeric columns stay empty");
        assertTrue(refused[refused.length - 3].contains("is not an instruction of ivybridge"), lines.get(4));
        assertEquals("", refused[refused.length - 2], "an error row names no estimator: none answered");
        assertEquals("block argument 2", refused[refused.length - 1], "the last column: where the block came from");
        CliRun xml = CliRun.of("simulate", "--mcpu", "haswell", "--format", "xml", loop);
        assertEquals(2, xml.exit());
        assertTrue(xml.err().contains("unknown --format 'xml': use text, json or csv"), xml.err());
    }
}

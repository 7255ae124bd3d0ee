package dev.basalt.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code predict} contract, with the simulator. */
class PredictCommandTest {

    /** The model and model_version cells of a row: the estimator's name and its fingerprint's first 16 digits. */
    private static String named(String model, Microarchitecture m) {
        String f = dev.basalt.core.Estimators.load(model).fingerprint(List.of(m)).orElseThrow();
        assertEquals(64, f.length(), "a SHA-256 fingerprint");
        return model + "," + f.substring(0, 16) + ",";
    }

    private static String simulated(String hex, Microarchitecture m) {
        double c = new Simulator(SimulatorParams.standard(m)).run(BasicBlock.fromHex(hex), Simulator.Options.defaults())
                .cyclesPerIteration();
        return String.format(Locale.ROOT, "%.4f", c);
    }

    @Test
    void aBlockThatDoesNotDecodeIsSaidOnceNotOncePerCpu() {
        CliRun r = CliRun.of("predict", "--model", "bounds", "--mcpu", "haswell,skylake,graniterapids", "0fff",
                "4801d8");
        assertEquals(2, r.exit());
        List<String> lines = r.out().lines().toList();
        assertEquals(List.of("0fff  error: at byte offset 0: truncated instruction: the block ends after 2 byte(s) of "
                + "an incomplete instruction"), lines.stream().filter(l -> l.startsWith("0fff")).toList(), r.out());
        // the CPUs' columns line up whatever their names' lengths
        List<Integer> at = lines.stream().filter(l -> l.startsWith("4801d8")).map(l -> l.indexOf("cycles/")).toList();
        assertEquals(3, at.size(), r.out());
        assertEquals(1, at.stream().distinct().count(), r.out());
        assertTrue(r.err().contains("the first: input 1 '0fff': at byte offset 0"), r.err());
    }

    @Test
    void csvHasOneRowPerBlockAndCpuInInputOrderAndErrorRows(@TempDir Path dir) throws Exception {
        Path input = dir.resolve("blocks.csv");
        Files.writeString(input, "4889de4889c24c89ff,100\nzz,5\n488b5c2408488b7c241031d24889de,200\n");
        CliRun r = CliRun.of("predict", "--model", "simulator", "--mcpu", "hsw", "--mcpu", "skl", "--input",
                input.toString(), "--format", "csv");
        assertEquals(2, r.exit(), r.err());
        List<String> lines = r.out().strip().lines().toList();
        assertEquals("hex,mcpu,model,model_version,cycles_per_iteration,interval_low,interval_high,memory,note,error,source,source_reason,input",
                lines.get(0));
        assertEquals(7, lines.size(), r.out());
        assertEquals("4889de4889c24c89ff,haswell," + named("simulator", Microarchitecture.HASWELL)
                + simulated("4889de4889c24c89ff", Microarchitecture.HASWELL)
                + ",,,harness,,,simulator,," + input + ":1", lines.get(1), "an ordinary block: no interval (the simulator gives none), BHive's "
                + "harness memory (straight-line), no note, no error");
        assertEquals("4889de4889c24c89ff,skylake," + named("simulator", Microarchitecture.SKYLAKE)
                + simulated("4889de4889c24c89ff", Microarchitecture.SKYLAKE)
                + ",,,harness,,,simulator,," + input + ":1", lines.get(2));
        // An error row keeps the numeric columns empty (numeric) and says why in the last column.
        String errorRow = "zz,haswell," + named("simulator", Microarchitecture.HASWELL) + ",,,,,";
        assertTrue(lines.get(3).startsWith(errorRow) && lines.get(3).length() > errorRow.length(), lines.get(3));
        assertTrue(lines.get(5).startsWith("488b5c2408488b7c241031d24889de,haswell,"), lines.get(5));
    }

    @Test
    void aBlockTheCpuCannotRunGetsAnErrorNamingTheInstructionAndTheOthersGoOn() throws Exception {
        // vpaddd zmm0, zmm1, zmm2 (AVX-512) on Haswell; vpaddd ymm0, ymm1, ymm2 (AVX2) on Ivy Bridge.
        for (String model : List.of("simulator", "bounds", "granite")) {
            CliRun r = CliRun.of("predict", "--model", model, "--mcpu", "haswell,ivybridge", "--format", "csv",
                    "4801c8", "62f17548fec2", "c5f5fec2");
            assertEquals(2, r.exit(), r.err());
            List<org.apache.commons.csv.CSVRecord> rows = org.apache.commons.csv.CSVFormat.DEFAULT.builder()
                    .setHeader().setSkipHeaderRecord(true).build().parse(new java.io.StringReader(r.out())).getRecords();
            assertEquals(6, rows.size(), r.out());
            assertTrue(Double.parseDouble(rows.get(0).get("cycles_per_iteration")) > 0, rows.get(0).toString());
            assertEquals("", rows.get(0).get("error"));
            assertEquals("", rows.get(2).get("cycles_per_iteration"), model);
            assertEquals("VPADDD zmm, zmm, zmm (AVX512EVEX, at byte 0) is not an instruction of haswell (Intel "
                    + "Haswell)", rows.get(2).get("error"), model);
            assertTrue(Double.parseDouble(rows.get(4).get("cycles_per_iteration")) > 0, model);
            assertTrue(rows.get(5).get("error").startsWith("VPADDD ymm, ymm, ymm (AVX2"), model + ": " + rows.get(5));
        }
    }

    @Test
    void instructionsWeDoNotModelGetANoteInEveryFormat() throws Exception {
        // wrmsr, hlt, syscall, ud2: numbers still, but each says it is not to be trusted, and why.
        CliRun t = CliRun.of("predict", "--mcpu", "hsw", "0f30", "f4", "0f05", "0f0b", "4801d8");
        assertEquals(0, t.exit(), t.err());
        List<String> lines = t.out().strip().lines().toList();
        assertEquals(13, lines.size(), t.out());
        assertTrue(lines.get(1).contains("note: instruction 0 (wrmsr) is a privileged or system instruction")
                && lines.get(1).contains("do not trust this number"), lines.get(1));
        assertTrue(lines.get(4).contains("(hlt)"), lines.get(4));
        assertTrue(lines.get(7).contains("(syscall) is an entry to or exit from the kernel"), lines.get(7));
        assertTrue(lines.get(10).contains("(ud2) is an undefined opcode"), lines.get(10));
        // GRANITE never saw these forms: each also says it is outside the training range.
        String[] forms = {"WRMSR", "HLT", "SYSCALL", "UD2"};
        for (int j = 0; j < 4; j++) {
            int k = 2 + 3 * j;  // and it names the forms it never saw
            assertTrue(lines.get(k).contains("note: outside granite's training range (")
                    && lines.get(k).contains("unknown forms: ") && lines.get(k).contains(forms[j]),
                    lines.get(k));
        }
        assertTrue(lines.get(12).startsWith("4801d8") && !t.out().contains("(add"), "an ordinary block has no note");
        // The simulator also says when a form had no row of its own: the x87 feni8087_nop (no row llvm-mca-14 gives,
        // nor one for its mnemonic: the generic row) and bswap ax (its mnemonic's row).
        CliRun csv = CliRun.of("predict", "--model", "simulator", "--mcpu", "hsw", "--format", "csv", "0f30",
                "dbe0", "660fc8");
        assertEquals(0, csv.exit(), csv.err());
        List<String> rows = csv.out().strip().lines().toList();
        assertTrue(rows.get(1).startsWith("0f30,haswell,") && rows.get(1).contains(",\"instruction 0 (wrmsr)")
                && rows.get(1).endsWith("do not trust this number\",,simulator,,block argument 1"), rows.get(1));
        assertTrue(rows.get(2).endsWith(",\"no table row for FENI8087_NOP: a generic row (one integer micro-op, "
                + "latency 1) was used\",,simulator,,block argument 2"), rows.get(2));
        assertTrue(rows.get(3).endsWith(",no table row for BSWAP r16: its mnemonic's row was used,,simulator,,block argument 3"), rows.get(3));
        JsonNode json = new ObjectMapper().readTree(CliRun.of("predict", "--model", "bounds", "--mcpu", "hsw",
                "--format", "json", "0fa2", "4801d8").out());
        assertTrue(json.get(0).get("note").asText().startsWith("instruction 0 (cpuid) is serializing"), json.toString());
        assertEquals("", json.get(1).get("note").asText(), json.toString());
    }

    @Test
    void aModelFileWrittenByTrainLoadsWhereverModelIsAccepted(@TempDir Path dir) throws Exception {
        // The bundled models are files basalt train wrote; copied out, they load by path and predict the same.
        for (String kind : List.of("granite", "ithemal")) {
            Class<?> owner = kind.equals("granite") ? dev.basalt.granite.GraniteModel.class
                    : dev.basalt.ithemal.IthemalModel.class;
            Path file = dir.resolve("my-" + kind + ".model");
            try (var in = owner.getResourceAsStream(kind + "-default." + kind)) {
                Files.write(file, in.readAllBytes());
            }
            CliRun byPath = CliRun.of("predict", "--model", file.toString(), "--mcpu", "hsw", "--format", "csv",
                    "4889de4889c24c89ff");
            CliRun byName = CliRun.of("predict", "--model", kind, "--mcpu", "hsw", "--format", "csv",
                    "4889de4889c24c89ff");
            assertEquals(0, byPath.exit(), byPath.err());
            assertEquals(byName.out(), byPath.out(), kind);
            CliRun explain = CliRun.of("explain", "--mcpu", "haswell", "--model", file.toString(), "--method", "anchors",
                    "--coverage-samples", "200", "4883c001");
            assertEquals(0, explain.exit(), explain.err());
        }
        Path truncated = dir.resolve("cut.granite");
        Files.write(truncated, java.util.Arrays.copyOf(Files.readAllBytes(dir.resolve("my-granite.model")), 1000));
        Path text = dir.resolve("notes.txt");
        Files.writeString(text, "not a model");
        for (String[] c : List.of(new String[] {dir.resolve("missing.granite").toString(), "no such model file"},
                new String[] {dir.toString(), "is a directory"},
                new String[] {text.toString(), "not a model file any estimator here reads"},
                new String[] {truncated.toString(), "truncated"})) {
            CliRun r = CliRun.of("predict", "--model", c[0], "4883c001");
            assertEquals(2, r.exit(), r.err());
            assertTrue(r.err().startsWith("basalt predict: --model: " + c[0]) && r.err().contains(c[1]), r.err());
        }
    }

    @Test
    void jsonAndTextAndAllCpusByDefault() throws Exception {
        CliRun j = CliRun.of("predict", "--model", "simulator", "--format", "json", "4801c8");
        assertEquals(0, j.exit(), j.err());
        JsonNode rows = new ObjectMapper().readTree(j.out());
        // the tests' machine (a Zen 4: the surefire configuration) has no measured model: every measured CPU
        assertEquals(DefaultCpus.shipped().size(), rows.size(), "every measured CPU: " + j.err());
        assertTrue(j.err().startsWith("basalt predict: --mcpu haswell, skylake, ivybridge, znver5, graniterapids; "
                + "this machine (AMD family 25 model 17"), j.err());
        for (JsonNode row : rows) {
            assertEquals("simulator", row.get("source").get("estimator").asText(), row.toString());
            assertTrue(row.get("source").get("fallback_from") == null, "the simulator answered itself: " + row);
        }
        // add rax, rcx is a one-cycle dependency chain on every CPU (add rax, 1 is not: Golden Cove and later
        // execute it at rename, four a cycle).
        for (JsonNode row : rows) {
            assertEquals(1.0, row.get("cycles_per_iteration").asDouble(), 0.05, row.toString());
        }
        CliRun t = CliRun.of("predict", "--model", "simulator", "--mcpu", "ivb", "4883c001");
        assertTrue(t.out().contains("ivybridge") && t.out().contains("cycles/iteration"), t.out());
    }

    @Test
    void unknownModelIsBadInput() {
        CliRun r = CliRun.of("predict", "--model", "oracle", "4883c001");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("unknown model 'oracle'"), r.err());
    }

    @Test
    void simulateShowsPortsAndTimeline() {
        // push rbx; pop rbx: with the stack engine the rsp chain is free.
        CliRun with = CliRun.of("simulate", "--mcpu", "haswell", "--timeline", "535b");
        CliRun without = CliRun.of("simulate", "--mcpu", "haswell", "--no-stack-engine", "535b");
        assertEquals(0, with.exit(), with.err());
        assertTrue(with.out().contains("port pressure (cycles/iteration") && with.out().contains("dispatch"), with.out());
        double a = Double.parseDouble(with.out().replaceAll("(?s).*?: ([0-9.]+) cycles/iteration.*", "$1"));
        double b = Double.parseDouble(without.out().replaceAll("(?s).*?: ([0-9.]+) cycles/iteration.*", "$1"));
        assertTrue(a < b, "stack engine " + a + " vs llvm-mca-like " + b);
    }

    @Test
    void simulateNamesFallbacksInWords(@TempDir Path dir) throws Exception {
        // mov rsi, rbx; xor eax, eax on a table without MOV forms (MOV falls back to its mnemonic) and without XOR.
        SimulatorParams hsw = SimulatorParams.bundled(Microarchitecture.HASWELL);
        java.util.Map<String, dev.basalt.simulator.params.InstructionParams> forms = new java.util.TreeMap<>(hsw.forms());
        forms.keySet().removeIf(f -> f.startsWith("MOV ") || f.startsWith("XOR "));
        java.util.Map<String, dev.basalt.simulator.params.InstructionParams> mnemonics = new java.util.TreeMap<>(hsw.mnemonics());
        mnemonics.remove("XOR");
        Path table = dir.resolve("table.json");
        hsw.toBuilder().forms(forms).mnemonics(mnemonics).build().write(table);
        CliRun r = CliRun.of("simulate", "--params", table.toString(), "4889de31c0");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("\n  fallbacks: {MOV r64, r64=mnemonic, XOR r32, r32=generic}\n"), r.out());
    }

    @Test
    void graniteIsTheDefaultAndExplainsInCyclesThatAddUp() throws Exception {
        // mov rsi, rbx; mov rdx, rax; mov rdi, r15 (the README's block), and a load + add + store.
        CliRun r = CliRun.of("predict", "--format", "json", "--explain", "--mcpu", "hsw", "4889de4889c24c89ff",
                "488b074801c8488907");
        assertEquals(0, r.exit(), r.err());
        JsonNode rows = new ObjectMapper().readTree(r.out());
        assertEquals(2, rows.size());
        dev.basalt.core.ThroughputEstimator granite = dev.basalt.core.Estimators.load("granite");
        for (JsonNode row : rows) {
            BasicBlock b = BasicBlock.fromHex(row.get("hex").asText());
            dev.basalt.core.Prediction p = granite.predict(b, Microarchitecture.HASWELL);
            // float32 sums in another batch composition may differ in the last bit
            assertEquals(p.cyclesPerIteration(), row.get("cycles_per_iteration").asDouble(),
                    1e-6 * p.cyclesPerIteration(), "predict's default model is the bundled GRANITE");
            assertEquals(b.size(), row.get("contributions").size());
            double sum = row.get("baseline").asDouble();
            for (JsonNode c : row.get("contributions")) {
                sum += c.get("cycles").asDouble();
            }
            assertEquals(row.get("cycles_per_iteration").asDouble(), sum, 1e-4, "baseline + contributions");
            // The baseline is the prior it was trained with: the standard (tuned) tables with the stack engine.
            assertEquals(new Simulator(SimulatorParams.standard(Microarchitecture.HASWELL))
                    .run(b, Simulator.Options.defaults()).cyclesPerIteration(), row.get("baseline").asDouble(), 1e-4);
        }
        CliRun text = CliRun.of("predict", "--explain", "--mcpu", "skl", "488b074801c8488907");
        assertTrue(text.out().contains("baseline") && text.out().contains("add rax, rcx"), text.out());
    }

    @Test
    void ithemalPredictsFromItsBundledModel() throws Exception {
        CliRun r = CliRun.of("predict", "--model", "ithemal", "--format", "json", "--explain", "4883c001",
                "488b074801c8488907");
        assertEquals(0, r.exit(), r.err());
        JsonNode rows = new ObjectMapper().readTree(r.out());
        dev.basalt.core.ThroughputEstimator ithemal = dev.basalt.core.Estimators.load("ithemal");
        assertTrue(ithemal.supported().containsAll(Microarchitecture.measured()), "BHive's three CPUs at least");
        assertEquals(2 * ithemal.supported().size(), rows.size(), "two blocks × every CPU it has a model for");
        for (JsonNode row : rows) {
            Microarchitecture m = Microarchitecture.parse(row.get("mcpu").asText());
            double expected = ithemal.predict(BasicBlock.fromHex(row.get("hex").asText()), m).cyclesPerIteration();
            assertEquals(expected, row.get("cycles_per_iteration").asDouble(), 1e-6 * expected); // float32, batched
            assertEquals(0, row.get("contributions").size(), "Ithemal does not attribute to instructions");
            assertTrue(row.get("baseline").asDouble() > 0, "its baseline is the simulator's prediction");
        }
        // add rax, 1 is a one-cycle loop-carried chain on every CPU; the model should know it.
        assertEquals(1.0, rows.get(0).get("cycles_per_iteration").asDouble(), 0.25, rows.get(0).toString());
    }

    @Test
    void aCpuWithoutAHeadFallsBackToTheSimulatorWithANote() {
        Microarchitecture zen3 = Microarchitecture.parse("znver3");
        CliRun r = CliRun.of("predict", "--mcpu", "znver3", "--mcpu", "haswell", "4883c0014889de");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("note: granite has no model for znver3"), r.out());
        assertTrue(r.out().contains("no measurements back this CPU"), r.out());
        CliRun csv = CliRun.of("predict", "--mcpu", "znver3", "--format", "csv", "4883c0014889de");
        assertEquals(0, csv.exit(), csv.err());
        assertEquals("4883c0014889de,znver3," + named("simulator", zen3) + simulated("4883c0014889de", zen3)
                + ",,,harness,,,simulator,granite has no model for znver3,block argument 1",
                csv.out().lines().skip(1)
                .findFirst().orElseThrow());
        assertTrue(csv.err().contains("note: granite has no model for znver3"), "the note goes to stderr beside csv");

        CliRun chosen = CliRun.of("predict", "--model", "granite", "--mcpu", "znver3", "4883c001");
        assertEquals(2, chosen.exit());
        assertTrue(chosen.err().startsWith("basalt predict: --mcpu znver3: granite has no model for znver3"),
                chosen.err());
    }

    @Test
    void boundsPutsEveryBoundInItsOwnColumnAndKey() throws Exception {
        // xchg rax, rbx; xchg rdx, rcx; xchg rsi, rdi: three-micro-op instructions, one a cycle on the complex
        // decoder (BoundsTest has the hand computation); every bound is a column in csv and a key in json.
        String hex = "4887d84887ca4887fe";
        dev.basalt.simulator.bounds.Bounds b = new Simulator(SimulatorParams.standard(Microarchitecture.HASWELL))
                .bounds(BasicBlock.fromHex(hex), Simulator.Options.defaults());
        CliRun csv = CliRun.of("predict", "--model", "bounds", "--mcpu", "haswell", "--format", "csv", hex);
        assertEquals(0, csv.exit(), csv.err());
        List<String> lines = csv.out().lines().toList();
        assertEquals("hex,mcpu,model,model_version,cycles_per_iteration,interval_low,interval_high,predecoder,decoders,delivery,issue,ports,"
                + "latency,memory,note,error,source,source_reason,input",
                lines.get(0));
        assertEquals(String.format(Locale.ROOT, "%s,haswell,%s%.4f,,,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,harness,,,bounds,,block "
                + "argument 1", hex,
                named("bounds", Microarchitecture.HASWELL),
                b.cyclesPerIteration(), b.predecoder(), b.decoders(), b.delivery(), b.issue(), b.ports(), b.latency()),
                lines.get(1));
        assertEquals(3.0, b.decoders(), 1e-9);
        CliRun json = CliRun.of("predict", "--model", "bounds", "--mcpu", "haswell", "--format", "json", hex);
        assertEquals(0, json.exit(), json.err());
        JsonNode n = new ObjectMapper().readTree(json.out()).get(0);
        assertEquals(b.decoders(), n.get("decoders").asDouble(), 1e-9);
        assertEquals(b.latency(), n.get("latency").asDouble(), 1e-9);
        assertEquals(b.cyclesPerIteration(), n.get("cycles_per_iteration").asDouble(), 1e-9);
    }

    @Test
    void aLearnedModelsPredictionCarriesItsNinetyPercentInterval() throws Exception {
        for (String model : List.of("granite", "ithemal")) {
            CliRun csv = CliRun.of("predict", "--model", model, "--mcpu", "haswell", "--format", "csv",
                    "4889de4889c24c89ff");
            assertEquals(0, csv.exit(), csv.err());
            String[] cells = csv.out().lines().skip(1).findFirst().orElseThrow().split(",", -1);
            assertEquals(model, cells[2]);
            assertEquals(16, cells[3].length(), "model_version: the model file's fingerprint with its prior's");
            double cycles = Double.parseDouble(cells[4]);
            double low = Double.parseDouble(cells[5]);
            double high = Double.parseDouble(cells[6]);
            assertTrue(low > 0 && low < cycles && cycles < high, model + ": " + String.join(",", cells));
            JsonNode json = new ObjectMapper().readTree(CliRun.of("predict", "--model", model, "--mcpu", "haswell",
                    "--format", "json", "4889de4889c24c89ff").out()).get(0);
            assertEquals(low, json.get("interval_low").asDouble(), 1e-4, json.toString());
            assertEquals(high, json.get("interval_high").asDouble(), 1e-4, json.toString());
            CliRun text = CliRun.of("predict", "--model", model, "--mcpu", "haswell", "4889de4889c24c89ff");
            assertTrue(text.out().contains(String.format(Locale.ROOT, "(90%% interval %.2f–%.2f)", low, high)),
                    text.out());
        }
    }

    @Test
    void aCommaListOfCpusIsTheSameAsRepeatingTheOption() {
        CliRun comma = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell,skylake", "--format", "csv",
                "4889de");
        CliRun repeated = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", "--mcpu", "skylake",
                "--format", "csv", "4889de");
        assertEquals(0, comma.exit(), comma.err());
        assertEquals(repeated.out(), comma.out());
        assertEquals(3, comma.out().lines().count());
    }

    @Test
    void aDirectoryOrABinaryFileAsInputIsBadInputNamingIt(@TempDir Path dir) throws Exception {
        CliRun directory = CliRun.of("predict", "--model", "simulator", "--input", dir.toString());
        assertEquals(2, directory.exit());
        assertEquals("basalt predict: --input " + dir + " is a directory, not a file of blocks",
                directory.err().lines().findFirst().orElseThrow());
        Path binary = dir.resolve("ls.bin");
        Files.write(binary, new byte[] {0x7f, 'E', 'L', 'F', 2, 1, 1, 0, (byte) 0xc3, (byte) 0xff, (byte) 0xfe});
        CliRun bin = CliRun.of("predict", "--model", "simulator", "--input", binary.toString());
        assertEquals(2, bin.exit());
        assertTrue(bin.err().startsWith("basalt predict: --input " + binary + " is not UTF-8 text"), bin.err());
    }

    @Test
    void aDashReadsStandardInputAndJsonNamesTheModel() throws Exception {
        java.io.InputStream saved = System.in;
        CliRun r;
        try {
            System.setIn(new java.io.ByteArrayInputStream("4889de\n\n4801d8,1.0\n".getBytes(
                    java.nio.charset.StandardCharsets.UTF_8)));
            r = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", "--input", "-", "--format", "json");
        } finally {
            System.setIn(saved);
        }
        assertEquals(0, r.exit(), r.err());
        JsonNode rows = new ObjectMapper().readTree(r.out());
        assertEquals(2, rows.size());
        assertEquals("4889de", rows.get(0).get("hex").asText());
        assertEquals("4801d8", rows.get(1).get("hex").asText());
        assertEquals("simulator", rows.get(1).get("model").asText());
        assertEquals(simulated("4801d8", Microarchitecture.HASWELL),
                String.format(Locale.ROOT, "%.4f", rows.get(1).get("cycles_per_iteration").asDouble()));
    }

    @Test
    void memorySaysWhetherPointersAliasAsInBHivesHarnessOrOnlyWhenTheCodeProvesIt() {
        // mov rax, [rsi]; add rax, rbx; mov [rdi], rax; dec rcx; jnz back: a copy loop
        String copy = "488b064801d848890748ffc975f2";
        CliRun auto = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", copy);
        assertEquals(0, auto.exit(), auto.err());
        assertTrue(auto.out().contains("1.00 cycles/iteration  [loop, distinct memory]"), auto.out());
        CliRun harness = CliRun.of("predict", "--model", "simulator", "--mcpu", "haswell", "--memory", "harness",
                "--format", "json", copy);
        assertEquals(0, harness.exit(), harness.err());
        assertTrue(harness.out().contains("\"memory\" : \"harness\""), harness.out());
        assertTrue(harness.out().contains("\"cycles_per_iteration\" : 6.0"), "BHive's one page chains the copy: "
                + harness.out());
        CliRun granite = CliRun.of("predict", "--memory", "distinct", copy);
        assertEquals(2, granite.exit());
        assertTrue(granite.err().contains("granite has no memory model"), granite.err());
    }
}

package dev.basalt.simulator;

import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.core.IsaSupport;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.InstructionSpace;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bundled tables hold every form the decoder produces that llvm-mca-14 prices (DESIGN.md §12), not only
 * BHive's 1,050; false output dependencies are per CPU; blocks a CPU cannot run are refused.
 */
class WholeInstructionSetTest {

    private static final List<Microarchitecture> CPUS = List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE,
            Microarchitecture.IVYBRIDGE, Microarchitecture.parse("znver3"));

    /** The forms the loop study found falling back to a generic or mnemonic row (issue 23). */
    private static final List<String> ONCE_MISSING = List.of("JNZ rel8", "JZ rel8", "JNLE rel8", "JNZ rel32",
            "AESENC xmm, xmm", "AESENCLAST xmm, xmm", "PCLMULQDQ xmm, xmm, i8", "CRC32 r64, r64", "CRC32 r32, r8",
            "LZCNT r64, r64", "MULX r64, r64, r64", "VPMULLD ymm, ymm, ymm", "VPSUBD ymm, ymm, ymm", "PADDQ xmm, xmm",
            "XCHG r64, RAX", "ROR r64, 1", "VBLENDVPS xmm, xmm, xmm, xmm", "LFENCE", "MFENCE", "LOCK ADD m64, r64");

    @Test
    void everyTableHasTheFormsThatUsedToFallBack() {
        for (Microarchitecture m : CPUS) {
            for (SimulatorParams t : tables(m)) {
                for (String f : ONCE_MISSING) {
                    assertTrue(t.forms().containsKey(f), m + " " + t.provenance().kind() + ": " + f);
                }
            }
        }
    }

    @Test
    void theSweepsFormsAreInTheTablesButForExoticExtensions() {
        List<InstructionSpace.Form> sweep = InstructionSpace.sweep();
        // Forms llvm-mca-14 has no data for: Xeon Phi (KNC), MPX and a few legacy ones; nothing mainstream.
        Set<String> mainstream = Set.of("SSE", "SSE2", "SSE3", "SSSE3", "SSE4", "AVX", "AVX2", "FMA", "AES",
                "PCLMULQDQ", "BMI1", "BMI2", "LZCNT", "F16C", "MOVBE", "ADOX_ADCX");
        for (Microarchitecture m : CPUS) {
            for (SimulatorParams t : tables(m)) {
                List<String> missing = new ArrayList<>();
                for (InstructionSpace.Form f : sweep) {
                    if (!t.forms().containsKey(f.form())) {
                        missing.add(f.form() + " (" + f.isaExtension() + ")");
                        assertTrue(!mainstream.contains(f.isaExtension()), m + ": " + f.form() + " has no row");
                    }
                }
                assertTrue(missing.size() <= sweep.size() / 50, m + ": " + missing.size() + " of " + sweep.size()
                        + " forms have no row: " + missing);
            }
        }
    }

    @Test
    void tuningKeptEveryImportedForm() {
        for (Microarchitecture m : List.of(Microarchitecture.HASWELL, Microarchitecture.SKYLAKE,
                Microarchitecture.IVYBRIDGE)) {
            assertEquals(SimulatorParams.bundled(m).forms().keySet(), SimulatorParams.standard(m).forms().keySet(),
                    m.toString());
        }
    }

    @Test
    void aBlockOfOnceMissingFormsGetsNoFallbackNote() {
        // aesenc xmm0, xmm1; crc32 rax, rcx; lzcnt rax, rcx
        Prediction p = SimulatorEstimator.standard().predict(BasicBlock.fromHex("660f38dcc1f2480f38f1c1f3480fbdc1"),
                Microarchitecture.HASWELL);
        assertEquals(List.of(), p.notes(), "every instruction has its own row");
    }

    @Test
    void falseOutputDependenciesArePerCpu() {
        // popcnt rax, rbx alone: 1 micro-op on port 1, latency 3. With the false dependency each popcnt waits for
        // the previous one's rax: 3 cycles an iteration (Haswell, Skylake); without it port 1 paces it at 1.
        Simulator.Options all = Simulator.Options.defaults();
        String popcnt = "f3480fb8c3";
        String lzcnt = "f3480fbdc3";
        Simulator hsw = new Simulator(SimulatorParams.standard(Microarchitecture.HASWELL));
        Simulator skl = new Simulator(SimulatorParams.standard(Microarchitecture.SKYLAKE));
        assertEquals(3.0, cycles(hsw, popcnt, all), 0.05);
        assertEquals(3.0, cycles(skl, popcnt, all), 0.05);
        // Skylake dropped LZCNT's and TZCNT's false dependency, Haswell has it.
        assertEquals(3.0, cycles(hsw, lzcnt, all), 0.05);
        assertEquals(1.0, cycles(skl, lzcnt, all), 0.05);
        // xor eax, eax before it breaks the chain: port 1 again.
        assertEquals(1.0, cycles(hsw, "31c0" + popcnt, all), 0.05);
        // The bounds see it too: the latency bound is the false-dependency cycle.
        assertEquals(3.0, hsw.bounds(BasicBlock.fromHex(popcnt), all).cyclesPerIteration(), 1e-9);
        // llvm-mca-14 does not model it.
        assertEquals(1.0, cycles(hsw, popcnt, Simulator.Options.llvmMcaCompatible()), 0.05);
    }

    @Test
    void everyMeasuredBhiveBlockRunsOnItsCpu() throws IOException {
        for (Microarchitecture m : Microarchitecture.measured()) {
            for (LabelledBlock b : Dataset.bundled().labelled(m)) {
                assertEquals(java.util.Optional.empty(), IsaSupport.unsupported(b.block(), m), b.hex());
            }
        }
    }

    @Test
    void tableCoverageOfTheJavaLauncherAndTheJvm() throws IOException {
        Path launcher = Path.of(ProcessHandle.current().info().command().orElseThrow());
        Path jvm = Path.of(System.getProperty("java.home"), "lib", "server", "libjvm.so");
        List<Path> files = new ArrayList<>(List.of(launcher));
        if (Files.exists(jvm)) {
            files.add(jvm);
        }
        TableCoverage.Scan scan = TableCoverage.scan(TableCoverage.files(files), done -> { });
        assertEquals(files.size(), scan.files());
        assertTrue(scan.instructions() > 1000, "instructions: " + scan.instructions());
        for (Microarchitecture m : CPUS) {
            TableCoverage.Coverage c = TableCoverage.of(scan, SimulatorParams.standard(m));
            assertTrue(c.percent() >= 99.5, m + ": " + c.percent() + "% covered; most frequent missing: "
                    + c.missing().subList(0, Math.min(10, c.missing().size())));
        }
    }

    private static double cycles(Simulator sim, String hex, Simulator.Options options) {
        return sim.run(BasicBlock.fromHex(hex), options).cyclesPerIteration();
    }

    private static List<SimulatorParams> tables(Microarchitecture m) {
        List<SimulatorParams> out = new ArrayList<>(List.of(SimulatorParams.bundled(m)));
        SimulatorParams.tuned(m).ifPresent(out::add);
        return out;
    }
}

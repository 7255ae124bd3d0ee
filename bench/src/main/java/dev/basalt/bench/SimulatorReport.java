package dev.basalt.bench;

import dev.basalt.simulator.params.RowSource;
import dev.basalt.datasets.Metrics;
import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.Evaluation;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.simulator.mca.LlvmMcaImporter;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The simulator issue's report on the bundled BHive sample, per CPU: table coverage, fidelity to llvm-mca-14
 * (all 10,000 blocks, 100 iterations, llvm-mca-compatible options), and accuracy against the measurements on
 * the test split (the tuned and untuned tables, and the untuned ones run as llvm-mca runs them, next to
 * llvm-mca-14 on the same blocks), plus llvm-mca's own speed.
 *
 * <pre>
 * mvn -q -DskipTests package -pl bench -am
 * java -cp bench/target/benchmarks.jar dev.basalt.bench.SimulatorReport
 * </pre>
 */
public final class SimulatorReport {

    private SimulatorReport() {
    }

    public static void main(String[] args) throws Exception {
        Dataset data = Dataset.bundled();
        LlvmMcaImporter llvm = new LlvmMcaImporter("llvm-mc-14", "llvm-mca-14");
        List<Evaluation> evaluations = new ArrayList<>();
        for (Microarchitecture m : Microarchitecture.measured()) {
            SimulatorParams params = SimulatorParams.bundled(m);
            Simulator sim = new Simulator(params);
            List<LabelledBlock> labelled = data.labelled(m);
            List<BasicBlock> blocks = labelled.stream().map(LabelledBlock::block).toList();
            // Coverage: instruction occurrences served by a form row vs a fallback.
            long occurrences = 0;
            long fallback = 0;
            for (BasicBlock b : blocks) {
                for (Instruction i : b.instructions()) {
                    occurrences++;
                    if (sim.resolve(i.form()).source() != RowSource.FORM) {
                        fallback++;
                    }
                }
            }
            // Fidelity to llvm-mca on every block.
            double before = llvm.llvmMcaSeconds();
            double[] mca = llvm.llvmMcaThroughput(blocks, m, 100);
            double llvmSeconds = llvm.llvmMcaSeconds() - before;
            double[] diff = new double[blocks.size()];
            int n = 0;
            long t1 = System.nanoTime();
            double[] ours = new double[blocks.size()];
            for (int i = 0; i < blocks.size(); i++) {
                ours[i] = sim.run(blocks.get(i), Simulator.Options.llvmMcaCompatible()).cyclesPerIteration();
            }
            double simSeconds = (System.nanoTime() - t1) / 1e9;
            for (int i = 0; i < blocks.size(); i++) {
                if (!Double.isNaN(mca[i])) {
                    diff[n++] = Metrics.ape(ours[i], mca[i]);
                }
            }
            double[] d = Arrays.copyOf(diff, n);
            Arrays.sort(d);
            double within10 = Arrays.stream(d).filter(x -> x <= 0.10).count() / (double) n;
            System.out.printf(Locale.ROOT, "%s: coverage %.3f%% of %d instruction occurrences by form rows (%.3f%% "
                            + "fallbacks); fidelity to llvm-mca-14 on %d/%d blocks: median |diff| %.2f%%, %.1f%% within "
                            + "10%%, mean %.2f%%; llvm-mca-14 (its own process time, one region per block) %.0f blocks/s, simulator "
                            + "(one cold pass, single thread) %.0f blocks/s%n", m, 100.0 * (occurrences - fallback)
                            / occurrences, occurrences, 100.0 * fallback / occurrences, n, blocks.size(),
                    100 * d[n / 2], 100 * within10, 100 * Arrays.stream(d).average().orElse(0),
                    blocks.size() / llvmSeconds, blocks.size() / simSeconds);
            // Accuracy on the test split.
            List<LabelledBlock> test = labelled.stream().filter(b -> SplitScheme.defaults().of(b) == Split.TEST)
                    .toList();
            double[] measured = test.stream().mapToDouble(b -> b.throughput(m).orElseThrow()).toArray();
            // The three simulator estimators: standard (tuned) tables, untuned tables, untuned as llvm-mca runs.
            Simulator tuned = new Simulator(SimulatorParams.standard(m));
            double[] withTuned = new double[test.size()];
            double[] withStack = new double[test.size()];
            double[] asLlvmMca = new double[test.size()];
            for (int i = 0; i < test.size(); i++) {
                withTuned[i] = tuned.run(test.get(i).block(), Simulator.Options.defaults()).cyclesPerIteration();
                withStack[i] = sim.run(test.get(i).block(), Simulator.Options.defaults()).cyclesPerIteration();
                asLlvmMca[i] = sim.run(test.get(i).block(), Simulator.Options.llvmMcaCompatible()).cyclesPerIteration();
            }
            double[] mcaTest = llvm.llvmMcaThroughput(test.stream().map(LabelledBlock::block).toList(), m, 100);
            List<Integer> ok = new ArrayList<>();
            for (int i = 0; i < test.size(); i++) {
                if (!Double.isNaN(mcaTest[i])) {
                    ok.add(i);
                }
            }
            evaluations.add(Evaluation.of("simulator (tuned tables)", data.name(), "test", m, pick(withTuned, ok),
                    pick(measured, ok)));
            evaluations.add(Evaluation.of("simulator-untuned (llvm-mca tables)", data.name(), "test", m,
                    pick(withStack, ok), pick(measured, ok)));
            evaluations.add(Evaluation.of("simulator-default (llvm-mca tables, run as llvm-mca)", data.name(), "test",
                    m, pick(asLlvmMca, ok), pick(measured, ok)));
            evaluations.add(Evaluation.of("llvm-mca-14", data.name(), "test", m, pick(mcaTest, ok), pick(measured, ok)));
        }
        System.out.println();
        System.out.print(Evaluation.markdownTable(evaluations));
    }

    private static double[] pick(double[] v, List<Integer> idx) {
        return idx.stream().mapToDouble(i -> v[i]).toArray();
    }
}

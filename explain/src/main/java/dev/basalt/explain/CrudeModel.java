package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Dependency;
import dev.basalt.decoder.DependencyKind;
import dev.basalt.decoder.Instruction;
import dev.basalt.simulator.params.InstructionParams;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * COMET's deliberately crude analytical model, whose true explanation is known, for measuring how accurate
 * explanations are: cycles = max(instructions ÷ 4, each instruction's reciprocal throughput, for each pair
 * (i, j) with a RAW dependency i → j within the iteration the sum of their reciprocal throughputs). The true
 * explanation is every feature whose term equals that maximum: {@code num_insts}, {@code inst_i} or
 * {@code dep(i,j,RAW)}.
 *
 * <p>Reciprocal throughput of a form comes from the shipped Haswell llvm-mca table (the {@code
 * simulator-default} one): max(micro-ops ÷ dispatch width, each port group's cycles ÷ its number of ports).
 * Thread-safe.
 */
public final class CrudeModel implements ThroughputEstimator {

    private static final double TIE = 1e-9;

    private final Simulator table;

    public CrudeModel(SimulatorParams params) {
        this.table = new Simulator(params);
    }

    /** The model over the bundled Haswell table. */
    public static CrudeModel haswell() {
        return new CrudeModel(SimulatorParams.bundled(Microarchitecture.HASWELL));
    }

    @Override
    public String name() {
        return "crude";
    }

    @Override
    public Set<Microarchitecture> supported() {
        return Set.of(Microarchitecture.HASWELL);
    }

    /** Reciprocal throughput of one instruction, in cycles. */
    public double reciprocalThroughput(Instruction insn) {
        InstructionParams row = table.resolve(insn.form()).row();
        double rt = (double) Math.max(1, row.uops()) / table.params().dispatchWidth();
        for (Map.Entry<String, Integer> e : row.ports().entrySet()) {
            String group = e.getKey();
            int units = group.chars().allMatch(Character::isDigit) ? group.length() : 1;
            rt = Math.max(rt, (double) e.getValue() / units);
        }
        return rt;
    }

    /** Every term of the model, by the feature it stands for. */
    public Map<Feature, Double> terms(BasicBlock block) {
        Map<Feature, Double> terms = new LinkedHashMap<>();
        terms.put(new Feature.NumInsts(), block.size() / 4.0);
        double[] rt = new double[block.size()];
        for (int i = 0; i < block.size(); i++) {
            rt[i] = reciprocalThroughput(block.instruction(i));
            terms.put(new Feature.Inst(i), rt[i]);
        }
        for (Dependency d : block.dependencyGraph().edges(DependencyKind.RAW)) {
            if (!d.loopCarried()) {
                terms.put(new Feature.Dep(d.producer(), d.consumer(), DependencyKind.RAW),
                        rt[d.producer()] + rt[d.consumer()]);
            }
        }
        return terms;
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        checkSupported(uarch);
        double max = 0;
        for (double v : terms(block).values()) {
            max = Math.max(max, v);
        }
        return Prediction.of(max);
    }

    /** The true explanation: the features whose term is the maximum (all of them on a tie). */
    public Set<Feature> trueExplanation(BasicBlock block) {
        Map<Feature, Double> terms = terms(block);
        double max = terms.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        Set<Feature> out = new TreeSet<>();
        terms.forEach((f, v) -> {
            if (v >= max - TIE) {
                out.add(f);
            }
        });
        return out;
    }
}

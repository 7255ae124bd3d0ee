package dev.basalt.explain;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.SimulatorParams;

import java.util.List;

/** Shared fixtures: the bundled data's Haswell test blocks and the mnemonic pool of the Haswell table. */
final class ExplainTestData {

    private ExplainTestData() {
    }

    private static final class Holder {
        static final List<BasicBlock> HASWELL_TEST = Dataset.bundled().labelled(Microarchitecture.HASWELL).stream()
                .filter(b -> SplitScheme.defaults().of(b) == Split.TEST).map(LabelledBlock::block).toList();
        static final MnemonicPool POOL = MnemonicPool.of(SimulatorParams.bundled(Microarchitecture.HASWELL).forms()
                .keySet());
    }

    /** Haswell test-split blocks of the bundled data, in file order. */
    static List<BasicBlock> haswellTest() {
        return Holder.HASWELL_TEST;
    }

    /** The largest Haswell test-split block of the bundled data (217 instructions). */
    static BasicBlock largestHaswellTest() {
        return haswellTest().stream().max(java.util.Comparator.comparingInt(BasicBlock::size)).orElseThrow();
    }

    static MnemonicPool pool() {
        return Holder.POOL;
    }
}

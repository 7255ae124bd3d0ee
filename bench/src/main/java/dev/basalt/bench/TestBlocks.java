package dev.basalt.bench;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;

import java.util.List;

/** Test-split blocks of the bundled sample, in file order. */
final class TestBlocks {

    private TestBlocks() {
    }

    /** The first {@code n} Haswell test-split blocks. */
    static List<BasicBlock> haswell(int n) {
        return Dataset.bundled().labelled(Microarchitecture.HASWELL).stream()
                .filter(b -> SplitScheme.defaults().of(b) == Split.TEST).limit(n).map(LabelledBlock::block).toList();
    }
}

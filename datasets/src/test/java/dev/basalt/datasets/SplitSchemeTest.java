package dev.basalt.datasets;

import dev.basalt.core.Microarchitecture;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SplitSchemeTest {

    private final SplitScheme scheme = SplitScheme.defaults();

    @Test
    void sizesAreWithinOnePointOfTheTargetShares() {
        Dataset d = Dataset.bundled();
        Map<Split, Long> sizes = d.blocks().stream().collect(Collectors.groupingBy(scheme::of, Collectors.counting()));
        double n = d.blocks().size();
        System.err.printf("split of %d distinct bundled blocks: train %d, validation %d, test %d%n", (long) n,
                sizes.get(Split.TRAIN), sizes.get(Split.VALIDATION), sizes.get(Split.TEST));
        assertEquals(0.8, sizes.get(Split.TRAIN) / n, 0.01);
        assertEquals(0.1, sizes.get(Split.VALIDATION) / n, 0.01);
        assertEquals(0.1, sizes.get(Split.TEST) / n, 0.01);
    }

    @Test
    void splitsAreDisjointAndCoverEveryBlock() {
        Dataset d = Dataset.bundled();
        List<String> all = new ArrayList<>();
        for (Split s : Split.values()) {
            d.blocks(scheme, s).forEach(b -> all.add(b.hex()));
        }
        assertEquals(d.blocks().size(), all.size());
        assertEquals(all.size(), all.stream().distinct().count());
    }

    @Test
    void sameBlockSameSplitWhateverCpuFileOrRowOrder() throws Exception {
        Dataset d = Dataset.bundled();
        Map<String, Split> reference = new HashMap<>();
        d.blocks().forEach(b -> reference.put(b.hex(), scheme.of(b)));
        // Rebuild each CPU's file with its rows shuffled and the files joined in reverse order.
        Random rnd = new Random(7);
        List<BlockFiles.Loaded> files = new ArrayList<>();
        List<Microarchitecture> order = new ArrayList<>(Microarchitecture.measured());
        Collections.reverse(order);
        for (Microarchitecture m : order) {
            List<String> rows = new ArrayList<>();
            for (LabelledBlock b : d.labelled(m)) {
                rows.add(b.hex() + "," + b.throughput(m).orElseThrow() * 100);
            }
            Collections.shuffle(rows, rnd);
            files.add(BlockFiles.read(new StringReader(String.join("\n", rows)), m + "-shuffled", Optional.of(m)));
        }
        Dataset shuffled = Dataset.join("shuffled", files);
        assertEquals(d.blocks().size(), shuffled.blocks().size());
        for (LabelledBlock b : shuffled.blocks()) {
            assertEquals(reference.get(b.hex()), scheme.of(b), b.hex());
        }
        // Per-CPU views agree: a block measured on several CPUs is in one split for all of them.
        Map<String, java.util.TreeMap<Microarchitecture, Split>> perCpu = new HashMap<>();
        for (Microarchitecture m : Microarchitecture.measured()) {
            for (LabelledBlock b : shuffled.labelled(m)) {
                perCpu.computeIfAbsent(b.hex(), k -> new java.util.TreeMap<>()).put(m, scheme.of(b));
            }
        }
        long shared = perCpu.values().stream().filter(v -> v.size() > 1).count();
        assertTrue(shared > 0);
        perCpu.values().forEach(v -> assertEquals(1, v.values().stream().distinct().count()));
    }

    @Test
    void deterministicAndCaseInsensitive() {
        assertEquals(scheme.of("4889de4889c24c89ff"), scheme.of("4889DE4889C24C89FF"));
        assertEquals(SplitScheme.unit("4889de"), SplitScheme.unit("4889de"));
        assertTrue(SplitScheme.unit("4889de") >= 0 && SplitScheme.unit("4889de") < 1);
    }

    @Test
    void otherSharesAndValidation() {
        SplitScheme half = new SplitScheme(0.5, 0.25);
        Dataset d = Dataset.bundled();
        long train = d.blocks().stream().filter(b -> half.of(b) == Split.TRAIN).count();
        assertEquals(0.5, train / (double) d.blocks().size(), 0.01);
        assertThrows(IllegalArgumentException.class, () -> new SplitScheme(0.9, 0.2));
        assertThrows(IllegalArgumentException.class, () -> new SplitScheme(0, 0.1));
        assertEquals(Split.VALIDATION, Split.parse("val"));
    }
}

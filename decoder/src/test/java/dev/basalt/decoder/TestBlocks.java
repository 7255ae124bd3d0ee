package dev.basalt.decoder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** Real blocks for tests: a bundled BHive sample, and the unlabelled BHive sources when present. */
final class TestBlocks {

    private TestBlocks() {
    }

    /** Every field of an instruction, for comparisons that must cover them all. */
    static List<Object> everything(Instruction i) {
        return List.of(i.offset(), i.hex(), i.mnemonic(), i.prefixes(), i.operands(), i.flagsRead(),
                i.flagsWritten(), i.idiom(), i.isaSet(), i.isaExtension(), i.category(), i.form());
    }

    /** Asserts that two decodings of one block agree on every field of every instruction. */
    static void assertSameInstructions(List<Instruction> expected, List<Instruction> actual, String block) {
        org.junit.jupiter.api.Assertions.assertEquals(expected.size(), actual.size(), block);
        for (int k = 0; k < expected.size(); k++) {
            org.junit.jupiter.api.Assertions.assertEquals(everything(expected.get(k)), everything(actual.get(k)),
                    block);
        }
    }

    /** 1,000 real blocks bundled with the tests. */
    static List<String> bhiveSample() throws IOException {
        try (InputStream in = TestBlocks.class.getResourceAsStream("bhive-hsw-1000.txt");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.US_ASCII))) {
            return r.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        }
    }

    /**
     * The folder of unlabelled BHive sources ({@code <basalt.shared.dir>/datasets/bhive-unlabelled/sources}),
     * or empty when it is not on this machine.
     */
    static Optional<Path> unlabelledSources() {
        String shared = System.getProperty("basalt.shared.dir", "../shared");
        Path p = Path.of(shared, "datasets", "bhive-unlabelled", "sources");
        return Files.isDirectory(p) ? Optional.of(p) : Optional.empty();
    }

    /** Distinct block hex strings of every source file, in file-name then line order. */
    static List<String> unlabelledBlocks(Path sources) throws IOException {
        Set<String> blocks = new LinkedHashSet<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(sources)) {
            files = s.filter(f -> f.toString().endsWith(".csv")).sorted().toList();
        }
        for (Path f : files) {
            for (String line : Files.readAllLines(f, StandardCharsets.US_ASCII)) {
                int comma = line.indexOf(',');
                String hex = (comma < 0 ? line : line.substring(0, comma)).trim();
                if (!hex.isEmpty()) {
                    blocks.add(hex);
                }
            }
        }
        return new ArrayList<>(blocks);
    }

    /** Whether {@code tool} is an executable on the PATH (tests that need it skip with a reason when not). */
    static boolean onPath(String tool) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            if (Files.isExecutable(Path.of(dir, tool))) {
                return true;
            }
        }
        return false;
    }
}

package dev.basalt.simulator;

import dev.basalt.decoder.BasicBlock;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Real blocks for the simulator's tests without a dependency on {@code datasets}: the first 400 blocks of the
 * bundled Haswell BHive sample (MIT license, Copyright (c) 2019 MIT CSAIL, Google Inc., and other contributors).
 */
final class SampleBlocks {

    private SampleBlocks() {
    }

    /** The first {@code n} (at most 400) blocks of the bundled Haswell sample, in file order. */
    static List<BasicBlock> haswell(int n) {
        try (InputStream in = SampleBlocks.class.getResourceAsStream("bhive-hsw-400.txt")) {
            if (in == null) {
                throw new IllegalStateException("bhive-hsw-400.txt is missing from the test resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().limit(n).map(BasicBlock::fromHex)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

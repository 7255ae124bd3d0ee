package dev.basalt.decoder;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Coverage-guided fuzzing (Jazzer) of the decoder's parsers that a request or a command reaches: hex, Intel and
 * AT&T assembly (and listings), ELF files, unwind tables and {@code perf script} profiles. Each may fail only with
 * its documented bad-input exception ({@link DecodeException}, {@link AssemblyException}, {@link IOException});
 * anything else, a hang or running out of memory is a finding. Under {@code mvn test} each runs its committed corpus
 * ({@code ParserFuzzTestInputs/<method>}) as a regression test; {@code JAZZER_FUZZ=1 mvn test -pl decoder
 * -Dtest=ParserFuzzTest#intel} fuzzes one for the {@code maxDuration} (docs/fuzzing.md).
 */
class ParserFuzzTest {

    @FuzzTest(maxDuration = "65m")
    void hex(byte[] input) {
        try {
            BasicBlock block = BasicBlock.fromHex(new String(input, StandardCharsets.ISO_8859_1));
            DependencyGraph.of(block.instructions(), MemoryPolicy.values()[0]);
        } catch (DecodeException expected) {
            // bad hex or bytes that are not x86-64: the documented answer
        }
    }

    @FuzzTest(maxDuration = "65m")
    void intel(byte[] input) {
        assemble(new String(input, StandardCharsets.UTF_8), Assembly.Syntax.INTEL);
    }

    @FuzzTest(maxDuration = "65m")
    void att(byte[] input) {
        assemble(new String(input, StandardCharsets.UTF_8), Assembly.Syntax.ATT);
    }

    private static void assemble(String text, Assembly.Syntax syntax) {
        try {
            Assembly.Program program = Assembly.assemble(text, syntax);
            for (Assembly.Block b : program.blocks()) {
                b.basicBlock();
                b.source();
            }
        } catch (AssemblyException expected) {
            // a statement that cannot be read or encoded, named by line and column
        }
    }

    /** An {@code .eh_frame} section's bytes as the unwind table's reader takes them (function boundaries). */
    @FuzzTest(maxDuration = "65m")
    void unwindTable(byte[] input) {
        try {
            for (UnwindTable.Range r : UnwindTable.ranges(input, 0x14818, 0x1f000, "fuzz")) {
                if (r.size() <= 0) {
                    throw new IllegalStateException("an empty range was returned: " + r);
                }
            }
        } catch (IOException expected) {
            // a malformed record, named by its offset
        }
    }

    /** {@code perf script}'s text, as {@code analyze --profile} reads it, mapped to a stripped program's addresses. */
    @FuzzTest(maxDuration = "65m")
    void perfScript(byte[] input) {
        ElfCode.Functions found = new ElfCode.Functions(List.of(new ElfCode.Function("dot", 0x11d0, new byte[0x48])),
                false, java.util.Set.of(), List.of(), ElfCode.Boundaries.SYMBOLS,
                List.of(new ElfCode.Placement(0x1040, 0x1040, 0x1f6)));
        try {
            PerfSamples.Counts c = PerfSamples.read(new java.io.BufferedReader(new java.io.StringReader(
                    new String(input, StandardCharsets.ISO_8859_1))), "fuzz", java.nio.file.Path.of("/tmp/prof/hot"),
                    found);
            if (c.mapped() < 0 || c.inFile() > c.total()) {
                throw new IllegalStateException("inconsistent counts: " + c);
            }
        } catch (IOException expected) {
            // no sample, a line too long, an address past 64 bits: named by line
        }
    }

    @FuzzTest(maxDuration = "65m")
    void elf(byte[] input) {
        try {
            ElfCode.Functions found = ElfCode.functions(input, "fuzz.o");
            for (ElfCode.Function f : found.functions()) {
                ControlFlow.of(f.bytes(), f.address(), found.knownStarts());
            }
        } catch (IOException expected) {
            // not ELF, not x86-64, malformed tables or sections: the documented answer
        }
    }
}

package dev.basalt.decoder;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * Linear-sweep disassembly of a stretch of machine code, such as an executable's {@code .text}: instructions
 * are decoded one after another from the start; a byte no instruction starts with (data or padding in the
 * code) is skipped and counted. What {@code objdump -d} does, without its symbol-driven resynchronisation.
 */
public final class CodeScan {

    private CodeScan() {
    }

    /** What a scan saw: instructions decoded and bytes skipped. */
    public record Result(long instructions, long skippedBytes) {
    }

    /**
     * Decodes {@code code[from, to)}, giving each instruction (its offset counted from {@code from}) to
     * {@code sink}, in order.
     */
    public static Result linear(byte[] code, int from, int to, Consumer<Instruction> sink) {
        Objects.checkFromToIndex(from, to, code.length);
        long[] count = new long[1];
        long skipped = Zydis.get().scan(code, from, to, insn -> {
            count[0]++;
            sink.accept(insn);
        });
        return new Result(count[0], skipped);
    }
}

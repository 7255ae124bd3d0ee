package dev.basalt.measure;

import dev.basalt.decoder.Assembly;
import dev.basalt.decoder.AssemblyException;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import dev.basalt.decoder.Instruction;

import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The calibration chain: a block of known latency, each copy dependent on the last, whose timing converts timer
 * ticks into core cycles ({@link Measurer}). Its ticks per copy over {@code cyclesPerCopy} are the timer's ticks a
 * cycle, so a chain the host runs faster than claimed makes every figure too large by the same factor.
 *
 * <p>The default is {@code add rax, rcx}: a register-register add is one cycle on every x86-64 core since 2011 and
 * no core executes it before it has both sources. It is not an immediate form on purpose. Intel's P-cores since
 * Golden Cove (Alder Lake, Raptor Lake, Sapphire, Emerald and Granite Rapids, Meteor and Arrow Lake) execute 64-bit
 * {@code add}/{@code sub}/{@code inc}/{@code dec} with small immediates, {@code lea r64, [r64+small]} and {@code mov
 * r64, imm} at rename, about four a cycle: a chain of {@code add rax, 1}, the chain Basalt used before, runs there at
 * 0.248 cycles a copy and made every figure 4.02 times too large. Register moves are eliminated at rename on most
 * cores since Ivy Bridge and Zen, so a {@code mov} chain is no clock either. {@link ClockCheck} verifies the chain on
 * the host before a run reports anything.
 *
 * @param assembly      the chain as a person reads it (Intel syntax)
 * @param hex           its machine code, one copy
 * @param cyclesPerCopy the latency of one copy, in core cycles, that the chain is taken to have
 */
public record ClockChain(String assembly, String hex, double cyclesPerCopy) {

    /** Longest chain the harness accepts (its request carries at most this many bytes). */
    public static final int MAX_BYTES = 64;

    /** {@code add rax, rcx}, one cycle a copy: no renamer folds it (see the class comment). */
    public static final ClockChain REGISTER_ADD = new ClockChain("add rax, rcx", "4801c8", 1);

    public ClockChain {
        hex = Measurer.canonical(hex);
        if (hex.isEmpty() || hex.length() % 2 != 0 || !hex.matches("[0-9a-f]+") || hex.length() / 2 > MAX_BYTES) {
            throw new IllegalArgumentException("a clock chain is 1 to " + MAX_BYTES + " bytes of machine code, got '"
                    + hex + "'");
        }
        if (!(cyclesPerCopy > 0 && cyclesPerCopy <= 64)) {
            throw new IllegalArgumentException("a clock chain's cycles per copy must be above 0 and at most 64, got "
                    + cyclesPerCopy);
        }
    }

    /** A chain the host cannot run as a clock (it would be refused as a block, or moves rsp or branches). */
    public static final class NotRunnable extends IllegalArgumentException {
        NotRunnable(String message) {
            super(message);
        }
    }

    byte[] code() {
        return HexFormat.of().parseHex(hex);
    }

    /** {@code add rax, rcx (1 cycle per copy)}: how the meta file and messages name it. */
    public String describe() {
        return assembly + " (" + cycles(cyclesPerCopy) + (cyclesPerCopy == 1 ? " cycle" : " cycles") + " per copy)";
    }

    private static String cycles(double c) {
        return c == Math.rint(c) ? Long.toString((long) c) : String.format(Locale.ROOT, "%.3f", c);
    }

    /**
     * A chain from {@code CHAIN=CYCLES}, CHAIN as hex or Intel/AT&T assembly ({@code "imul rax, rax=3"},
     * {@code 480fafc0=3}); its assembly is read back from the decoded code.
     *
     * @throws IllegalArgumentException naming what is wrong with {@code spec}
     */
    public static ClockChain parse(String spec) {
        int eq = spec.lastIndexOf('=');
        if (eq <= 0 || eq == spec.length() - 1) {
            throw new IllegalArgumentException("'" + spec + "' is not CHAIN=CYCLES (for example 'add rax, rcx=1')");
        }
        String chain = spec.substring(0, eq).trim();
        double cycles;
        try {
            cycles = Double.parseDouble(spec.substring(eq + 1).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + spec.substring(eq + 1) + "' in '" + spec + "' is not a number of "
                    + "cycles");
        }
        String hex;
        if (chain.matches("(?i)(0x)?[0-9a-f]+(\\s+(0x)?[0-9a-f]+)*")) {
            hex = Measurer.canonical(chain);
        } else {
            try {
                List<Assembly.Block> blocks = Assembly.parse(chain, Assembly.Syntax.detect(chain));
                if (blocks.size() != 1) {
                    throw new IllegalArgumentException("'" + chain + "' is not one block of instructions");
                }
                hex = blocks.get(0).hex();
            } catch (AssemblyException e) {
                throw new IllegalArgumentException("'" + chain + "': " + e.getMessage());
            }
        }
        if (hex.length() % 2 != 0 || hex.length() / 2 > MAX_BYTES) {
            throw new IllegalArgumentException("'" + chain + "' is not 1 to " + MAX_BYTES + " whole bytes of code");
        }
        String assembly;
        try {
            assembly = BasicBlock.fromHex(hex).instructions().stream().map(Instruction::intelSyntax)
                    .collect(Collectors.joining("; "));
        } catch (DecodeException e) {
            throw new IllegalArgumentException("'" + chain + "' does not decode: " + e.getMessage());
        }
        return new ClockChain(assembly, hex, cycles);
    }
}

package dev.basalt.cli;

import dev.basalt.simulator.Simulator;
import picocli.CommandLine;

/** {@code auto} / {@code loop} / {@code unroll} on the command line ({@code --mode}). */
final class LoopModes implements CommandLine.ITypeConverter<Simulator.LoopMode> {
    @Override
    public Simulator.LoopMode convert(String value) {
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "auto" -> Simulator.LoopMode.AUTO;
            case "loop" -> Simulator.LoopMode.LOOP;
            case "unroll" -> Simulator.LoopMode.UNROLL;
            default -> throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a mode: use auto, loop or unroll");
        };
    }
}

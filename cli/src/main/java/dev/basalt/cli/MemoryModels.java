package dev.basalt.cli;

import dev.basalt.simulator.Simulator;
import picocli.CommandLine;

/** {@code auto} / {@code harness} / {@code distinct} on the command line ({@code --memory} of predict and simulate). */
final class MemoryModels implements CommandLine.ITypeConverter<Simulator.MemoryModel> {
    @Override
    public Simulator.MemoryModel convert(String value) {
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "auto" -> Simulator.MemoryModel.AUTO;
            case "harness" -> Simulator.MemoryModel.HARNESS;
            case "distinct" -> Simulator.MemoryModel.DISTINCT;
            default -> throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a memory model: use auto, harness or distinct");
        };
    }
}

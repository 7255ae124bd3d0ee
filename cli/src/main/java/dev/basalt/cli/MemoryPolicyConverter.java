package dev.basalt.cli;

import dev.basalt.decoder.MemoryPolicy;
import picocli.CommandLine;

/** {@code same-expression} / {@code all-alias} on the command line. */
final class MemoryPolicyConverter implements CommandLine.ITypeConverter<MemoryPolicy> {
    @Override
    public MemoryPolicy convert(String value) {
        return switch (value.toLowerCase(java.util.Locale.ROOT)) {
            case "same-expression" -> MemoryPolicy.SAME_EXPRESSION;
            case "all-alias" -> MemoryPolicy.ALL_ALIAS;
            default -> throw new CommandLine.TypeConversionException("'" + value
                    + "' is not a memory policy: use same-expression or all-alias");
        };
    }

    static String name(MemoryPolicy p) {
        return p == MemoryPolicy.SAME_EXPRESSION ? "same-expression" : "all-alias";
    }
}

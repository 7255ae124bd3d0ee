package dev.basalt.core;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The CPUs Basalt models, named as llvm-mca's {@code -mcpu} names them, with BHive's short names as aliases.
 * Adding a CPU is adding a constant here plus its data.
 */
public enum Microarchitecture {
    /** Intel Haswell (BHive {@code hsw}). */
    HASWELL("haswell", "hsw"),
    /** Intel Skylake (BHive {@code skl}). */
    SKYLAKE("skylake", "skl"),
    /** Intel Ivy Bridge (BHive {@code ivb}). */
    IVYBRIDGE("ivybridge", "ivb");

    private final String llvmName;
    private final String shortName;

    Microarchitecture(String llvmName, String shortName) {
        this.llvmName = llvmName;
        this.shortName = shortName;
    }

    /** The llvm-mca {@code -mcpu} name: {@code haswell}, {@code skylake}, {@code ivybridge}. */
    public String llvmName() {
        return llvmName;
    }

    /** BHive's short name: {@code hsw}, {@code skl}, {@code ivb}. */
    public String shortName() {
        return shortName;
    }

    /**
     * Parses an llvm name or short alias, case-insensitively.
     *
     * @throws IllegalArgumentException naming the value and the accepted names
     */
    public static Microarchitecture parse(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (Microarchitecture m : values()) {
            if (m.llvmName.equals(n) || m.shortName.equals(n)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown microarchitecture '" + name + "': use one of "
                + Arrays.stream(values()).map(m -> m.llvmName + " (" + m.shortName + ")")
                        .collect(Collectors.joining(", ")));
    }

    @Override
    public String toString() {
        return llvmName;
    }
}

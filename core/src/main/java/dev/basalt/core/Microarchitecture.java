package dev.basalt.core;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A CPU Basalt models, named as llvm-mca's {@code -mcpu} names it, with aliases (BHive's short names). The set
 * of CPUs is data: one {@link CpuDescriptor} resource per CPU under {@code dev/basalt/core/cpus/}, listed in
 * {@code index.txt} there, read once when this class loads. Instances are canonical (compare with
 * {@code ==} or {@code equals}) and ordered as the index lists them.
 */
public final class Microarchitecture implements Comparable<Microarchitecture> {

    private static final String INDEX = "cpus/index.txt";
    private static final List<Microarchitecture> ALL = load();

    /** Intel Haswell (BHive {@code hsw}). */
    public static final Microarchitecture HASWELL = parse("haswell");
    /** Intel Skylake (BHive {@code skl}). */
    public static final Microarchitecture SKYLAKE = parse("skylake");
    /** Intel Ivy Bridge (BHive {@code ivb}). */
    public static final Microarchitecture IVYBRIDGE = parse("ivybridge");

    private final CpuDescriptor descriptor;
    private final int order;

    private Microarchitecture(CpuDescriptor descriptor, int order) {
        this.descriptor = descriptor;
        this.order = order;
    }

    private static List<Microarchitecture> load() {
        ObjectMapper json = new ObjectMapper();
        List<Microarchitecture> out = new ArrayList<>();
        try (InputStream index = Microarchitecture.class.getResourceAsStream(INDEX)) {
            if (index == null) {
                throw new IllegalStateException("CPU index " + INDEX + " is missing from the class path");
            }
            List<String> names = new BufferedReader(new InputStreamReader(index, StandardCharsets.UTF_8)).lines()
                    .map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
            for (String name : names) {
                String resource = "cpus/" + name + ".json";
                try (InputStream in = Microarchitecture.class.getResourceAsStream(resource)) {
                    if (in == null) {
                        throw new IllegalStateException("CPU " + name + " is listed in " + INDEX + " but "
                                + resource + " is missing");
                    }
                    CpuDescriptor d = json.readValue(in, CpuDescriptor.class);
                    if (!d.name().equals(name)) {
                        throw new IllegalStateException(resource + " describes '" + d.name() + "', not " + name);
                    }
                    out.add(new Microarchitecture(d, out.size()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the CPU descriptors: " + e.getMessage(), e);
        }
        return List.copyOf(out);
    }

    /** Every CPU with a descriptor, in index order. */
    public static List<Microarchitecture> all() {
        return ALL;
    }

    /** The CPUs with bundled measurements (BHive), in index order. */
    public static List<Microarchitecture> measured() {
        return ALL.stream().filter(m -> m.descriptor.bhive().isPresent()).toList();
    }

    /** The CPUs Basalt measured itself ({@code basalt measure}; data sets named by the CPU), in index order. */
    public static List<Microarchitecture> hostMeasured() {
        return ALL.stream().filter(m -> m.descriptor.measured().isPresent()).toList();
    }

    /**
     * What backs this CPU's numbers, for help texts and reports: {@code "measured by Basalt"} (its own data
     * set), {@code "BHive"} (BHive's published measurements), or {@code "imported only"} (llvm-mca's tables).
     */
    public String evidence() {
        return descriptor.measured().isPresent() ? "measured by Basalt" : descriptor.bhive().isPresent() ? "BHive"
                : "imported only";
    }

    /** Everything the descriptor says. */
    public CpuDescriptor descriptor() {
        return descriptor;
    }

    /** The llvm-mca {@code -mcpu} name: {@code haswell}, {@code skylake}, {@code ivybridge}, {@code znver3}. */
    public String llvmName() {
        return descriptor.name();
    }

    /** The short name: BHive's ({@code hsw}) where there is one, else the first alias, else the name. */
    public String shortName() {
        return descriptor.bhive().orElse(descriptor.aliases().isEmpty() ? descriptor.name()
                : descriptor.aliases().get(0));
    }

    /**
     * Parses a name or alias, case-insensitively.
     *
     * @throws IllegalArgumentException naming the value and the accepted names
     */
    public static Microarchitecture parse(String name) {
        return find(name).orElseThrow(() -> new IllegalArgumentException("unknown microarchitecture '" + name
                + "': use one of " + ALL.stream().map(m -> m.descriptor.aliases().isEmpty() ? m.llvmName()
                        : m.llvmName() + " (" + String.join(", ", m.descriptor.aliases()) + ")")
                .collect(Collectors.joining(", "))));
    }

    /** The CPU of a name or alias, case-insensitively, if there is one. */
    public static Optional<Microarchitecture> find(String name) {
        String n = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        return ALL.stream().filter(m -> m.llvmName().equals(n) || m.descriptor.aliases().contains(n)).findFirst();
    }

    @Override
    public int compareTo(Microarchitecture o) {
        return Integer.compare(order, o.order);
    }

    @Override
    public String toString() {
        return llvmName();
    }
}

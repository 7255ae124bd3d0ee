package dev.basalt.core;

import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One estimator made of several of the same kind, each for its own CPUs: a model trained on BHive's Intel CPUs and
 * one trained on a CPU Basalt measured, served under one name ({@code granite}). Each call goes to the estimator of
 * its CPU; the CPUs are the union, listed in Basalt's order of CPUs whichever part serves them. Thread-safe when its
 * parts are; closing it closes them.
 */
public final class CpuRouted implements ThroughputEstimator, AutoCloseable {

    private final String name;
    private final Map<Microarchitecture, ThroughputEstimator> byCpu = new LinkedHashMap<>();
    private final List<ThroughputEstimator> parts;
    private final Set<Microarchitecture> supported;

    /**
     * @param name  the name it answers to
     * @param parts estimators in order of precedence: a CPU two of them support goes to the first
     */
    public CpuRouted(String name, List<ThroughputEstimator> parts) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("no estimators to route between");
        }
        this.name = name;
        this.parts = List.copyOf(parts);
        for (ThroughputEstimator e : parts) {
            for (Microarchitecture m : e.supported()) {
                byCpu.putIfAbsent(m, e);
            }
        }
        // Precedence decides who serves a CPU, not where it is listed: a CPU's own model goes first, and
        // `basalt predict` would otherwise print Zen 5 before the Intel CPUs.
        this.supported = java.util.Collections.unmodifiableSet(
                new LinkedHashSet<>(byCpu.keySet().stream().sorted().toList()));
    }

    /**
     * A model shipped with heads for some CPUs and, for each CPU that has one, that CPU's own model ({@code own}:
     * empty when there is none) — under one name; {@code main} alone when no CPU has its own. A CPU's own model,
     * trained on that CPU alone, goes before a head of {@code main} for it (the default GRANITE model has a Zen 5
     * head because Zen 5's labels teach the Intel heads; Zen 5's own model is the better one for Zen 5).
     */
    public static ThroughputEstimator withOwnModels(String name, ThroughputEstimator main,
            OwnModel own) throws java.io.IOException {
        List<ThroughputEstimator> parts = new ArrayList<>();
        for (Microarchitecture m : Microarchitecture.all()) {
            own.of(m).ifPresent(parts::add);
        }
        if (parts.isEmpty()) {
            return main;
        }
        parts.add(main);
        return new CpuRouted(name, parts);
    }

    /** A CPU's own bundled model, if the build has one. */
    @FunctionalInterface
    public interface OwnModel {
        Optional<? extends ThroughputEstimator> of(Microarchitecture cpu) throws java.io.IOException;
    }

    /** The estimator that predicts for {@code uarch}. */
    public ThroughputEstimator part(Microarchitecture uarch) {
        checkSupported(uarch);
        return byCpu.get(uarch);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Set<Microarchitecture> supported() {
        return supported;
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        return part(uarch).predict(block, uarch);
    }

    @Override
    public List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        return part(uarch).predictAll(blocks, uarch);
    }

    @Override
    public List<Optional<Prediction>> predictEach(List<BasicBlock> blocks, Microarchitecture uarch) {
        return part(uarch).predictEach(blocks, uarch);
    }

    @Override
    public List<Prediction> predictFeatures(List<BasicBlock> blocks, Microarchitecture uarch) {
        return part(uarch).predictFeatures(blocks, uarch);
    }

    @Override
    public List<String> detailNames() {
        Set<String> names = new LinkedHashSet<>();
        parts.forEach(p -> names.addAll(p.detailNames()));
        return List.copyOf(names);
    }

    /** Each part's fingerprint of its own CPUs among {@code cpus}, joined; empty when a part has none. */
    @Override
    public Optional<String> fingerprint(Collection<Microarchitecture> cpus) {
        StringBuilder sb = new StringBuilder();
        for (ThroughputEstimator p : parts) {
            List<Microarchitecture> mine = cpus.stream().filter(m -> byCpu.get(m) == p).toList();
            if (mine.isEmpty()) {
                continue;
            }
            Optional<String> f = p.fingerprint(mine);
            if (f.isEmpty()) {
                return Optional.empty();
            }
            sb.append(sb.isEmpty() ? "" : "+").append(f.get());
        }
        return sb.isEmpty() ? Optional.empty() : Optional.of(sb.toString());
    }

    @Override
    public List<String> warnings() {
        List<String> out = new ArrayList<>();
        parts.forEach(p -> out.addAll(p.warnings()));
        return out;
    }

    @Override
    public void close() throws Exception {
        Exception first = null;
        for (ThroughputEstimator p : parts) {
            if (p instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    first = first == null ? e : first;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}

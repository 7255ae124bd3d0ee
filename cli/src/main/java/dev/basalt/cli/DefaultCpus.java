package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.measure.HostCpu;

import java.io.PrintWriter;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The CPUs a command predicts for when {@code --mcpu} is not given, the same for every command: this machine's CPU
 * when Basalt has measurements of it (BHive's or its own), else every CPU with measurements. Said once on stderr,
 * with the closest CPU and {@code basalt calibrate} when this machine has none, so that nobody reads a Haswell
 * number as their own machine's.
 */
final class DefaultCpus {

    /** What the help of every {@code --mcpu} says of the default. */
    static final String HELP = "default: this machine's CPU when Basalt has measured it, else every measured CPU; "
            + "host: the shipped CPU closest to this machine's";

    private DefaultCpus() {
    }

    /** The CPUs with measurements behind them (BHive's or Basalt's), in Basalt's order. */
    static List<Microarchitecture> shipped() {
        return Microarchitecture.all().stream()
                .filter(m -> m.descriptor().bhive().isPresent() || m.descriptor().measured().isPresent()).toList();
    }

    /**
     * {@code given} when the user named CPUs, else the default among {@code supported} (what the estimator
     * predicts for), said on {@code err} as {@code command}.
     */
    static List<Microarchitecture> resolve(List<Microarchitecture> given, Collection<Microarchitecture> supported,
                                           PrintWriter err, String command) {
        if (given != null && !given.isEmpty()) {
            return given.stream().distinct().toList();
        }
        return forHost(HostCpuInfo.read(), supported, err, command);
    }

    /** The default CPUs on a machine whose CPU is {@code host} (empty: unknown). */
    static List<Microarchitecture> forHost(Optional<HostCpu> host, Collection<Microarchitecture> supported,
                                    PrintWriter err, String command) {
        List<Microarchitecture> all = shipped().stream().filter(supported::contains).toList();
        if (all.isEmpty() || !supported.containsAll(shipped())) {
            // a model for some CPUs only (a table or a model file): its CPUs, whatever this machine is
            List<Microarchitecture> own = all.isEmpty() ? List.copyOf(supported) : all;
            err.println(command + ": --mcpu " + String.join(", ", own.stream().map(Microarchitecture::llvmName)
                    .toList()) + ", the CPUs the model has");
            err.flush();
            return own;
        }
        Optional<Microarchitecture> own = host.filter(h -> modelled(h)).map(CalibrateCommand::closest)
                .filter(all::contains);
        if (own.isPresent()) {
            err.println(command + ": --mcpu " + own.get().llvmName() + ", this machine's CPU (" + brief(host.get())
                    + "; " + own.get().evidence() + "); --mcpu names others");
            err.flush();
            return List.of(own.get());
        }
        String names = String.join(", ", all.stream().map(Microarchitecture::llvmName).toList());
        err.println(command + ": --mcpu " + names + (host.isEmpty() ? " (this machine's CPU is unknown)"
                : "; this machine (" + brief(host.get()) + ") has no measured model: --mcpu host picks the closest, "
                + CalibrateCommand.closest(host.get()).llvmName() + "; basalt calibrate fits one"));
        err.flush();
        return all;
    }

    /** {@code AMD family 25 model 17 "AMD EPYC"}. */
    private static String brief(HostCpu host) {
        String vendor = switch (host.vendor()) {
            case "AuthenticAMD" -> "AMD";
            case "GenuineIntel" -> "Intel";
            default -> host.vendor();
        };
        return vendor + " family " + host.family() + " model " + host.model()
                + (host.modelName().isEmpty() ? "" : " \"" + host.modelName() + "\"");
    }

    /**
     * Whether Basalt has measurements of {@code host}'s own CPU: Basalt measured this CPU, or it is one of BHive's
     * (Ivy Bridge, Haswell, Skylake by model number), or a core of Granite Rapids' family (Golden, Raptor,
     * Redwood Cove: SERIALIZE) or of Zen 5's (family 26).
     */
    static boolean modelled(HostCpu host) {
        Microarchitecture closest = CalibrateCommand.closest(host);
        if (closest.descriptor().measured().orElse("").equals(CalibrateCommand.folderOf(host))) {
            return true;
        }
        if (host.vendor().equals("AuthenticAMD")) {
            return host.family() == 26 && closest.llvmName().equals("znver5");
        }
        if (!host.vendor().equals("GenuineIntel") || host.family() != 6) {
            return false;
        }
        if (host.features().contains("serialize")) {
            return closest.llvmName().equals("graniterapids");
        }
        return switch (host.model()) {
            case 0x3a, 0x3e, 0x3c, 0x3f, 0x45, 0x46, 0x4e, 0x5e, 0x55, 0x8e, 0x9e, 0xa5, 0xa6 -> true;
            default -> false;
        };
    }
}

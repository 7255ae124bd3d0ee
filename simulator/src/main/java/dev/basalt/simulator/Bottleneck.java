package dev.basalt.simulator;

import java.util.List;
import java.util.Objects;

/**
 * What limits a block in the simulator: the four bounds it can hit and the one closest to what it observed.
 *
 * @param kind             the limiting resource
 * @param cyclesPerIteration what the simulator measured
 * @param frontEndBound    cycles per iteration the front end alone needs (predecoder, decoders, microcode
 *                         sequencer, with an ideal back end); 0 for a machine without a front end
 * @param dispatchBound    (fused) micro-ops per iteration ÷ issue (dispatch) width
 * @param portBound        busy cycles per iteration of the busiest port
 * @param busiestPort      that port's name ("0".."7", "Divider", ...)
 * @param chainBound       cycles per iteration of the loop-carried latency chain
 * @param chain            the instructions on that chain, in block order
 * @param resource         what is busy, for people and programs: {@code decoders}, {@code issue width 4},
 *                         {@code ports 0156}, {@code dependency chain}
 * @param instructions     the instructions that load that resource (the chain's, the port set's micro-ops' …)
 * @param boundPort        the port the run's micro-ops kept busiest as they were bound at allocation ("" when not
 *                         known), which can be busier than the port bound's best spread ({@code portBound})
 * @param boundPortCycles  that port's busy cycles per iteration in the run
 */
public record Bottleneck(Kind kind, double cyclesPerIteration, double frontEndBound, double dispatchBound,
                         double portBound,
                         String busiestPort, double chainBound, List<Integer> chain, String resource,
                         List<Integer> instructions, String boundPort, double boundPortCycles) {

    /** Without the run's port use. */
    public Bottleneck(Kind kind, double cyclesPerIteration, double frontEndBound, double dispatchBound,
                      double portBound, String busiestPort, double chainBound, List<Integer> chain, String resource,
                      List<Integer> instructions) {
        this(kind, cyclesPerIteration, frontEndBound, dispatchBound, portBound, busiestPort, chainBound, chain,
                resource, instructions, "", 0);
    }

    /** This bottleneck with the run's busiest port as bound at allocation. */
    public Bottleneck withBinding(String port, double cycles) {
        return new Bottleneck(kind, cyclesPerIteration, frontEndBound, dispatchBound, portBound, busiestPort,
                chainBound, chain, resource, instructions, port, cycles);
    }

    /** The first machine's: its resource named from the kind, its instructions the chain's when it is a chain. */
    public Bottleneck(Kind kind, double cyclesPerIteration, double frontEndBound, double dispatchBound,
                      double portBound, String busiestPort, double chainBound, List<Integer> chain) {
        this(kind, cyclesPerIteration, frontEndBound, dispatchBound, portBound, busiestPort, chainBound, chain,
                switch (kind) {
                    case FRONT_END -> "front end";
                    case DISPATCH_WIDTH -> "issue width";
                    case PORT_PRESSURE -> "port " + busiestPort;
                    case DEPENDENCY_CHAIN -> "dependency chain";
                }, kind == Kind.DEPENDENCY_CHAIN ? chain : List.of());
    }

    /** The resource a block waits for. */
    public enum Kind {
        /** The predecoder or decoders cannot deliver instructions faster. */
        FRONT_END,
        /** Micro-ops cannot be issued (dispatched) faster than the machine's width. */
        DISPATCH_WIDTH,
        /** One execution port (or divider) is busy every cycle. */
        PORT_PRESSURE,
        /** Each iteration waits for the previous one's results along a chain of latencies. */
        DEPENDENCY_CHAIN
    }

    public Bottleneck {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(busiestPort, "busiestPort");
        chain = List.copyOf(chain);
        Objects.requireNonNull(resource, "resource");
        Objects.requireNonNull(boundPort, "boundPort");
        instructions = List.copyOf(instructions);
    }

    /** The named bottleneck's bound: what its resource alone takes, in cycles per iteration. */
    public double cycles() {
        return switch (kind) {
            case FRONT_END -> frontEndBound;
            case DISPATCH_WIDTH -> dispatchBound;
            case PORT_PRESSURE -> portBound;
            case DEPENDENCY_CHAIN -> chainBound;
        };
    }

    /** Every bound, for people: {@code front end: 1.88 · issue: 1.50 · port 5: 1.50 · latency: 1.00}. */
    public String bounds() {
        return String.format(java.util.Locale.ROOT, "front end: %.2f · issue: %.2f · port %s: %.2f · latency: %.2f",
                frontEndBound, dispatchBound, busiestPort.isEmpty() ? "-" : busiestPort, portBound, chainBound);
    }

    /** One line for people: {@code port pressure: port 0 busy 2.00 of 2.05 cycles/iteration}. */
    public String describe() {
        String what = switch (kind) {
            case FRONT_END -> String.format(java.util.Locale.ROOT, "front end: %s%.2f of %.2f cycles/iteration",
                    resource.equals("front end") ? "" : resource + " ", frontEndBound, cyclesPerIteration);
            case DISPATCH_WIDTH -> String.format(java.util.Locale.ROOT, "%s: %.2f of %.2f cycles/iteration", resource,
                    dispatchBound, cyclesPerIteration);
            case PORT_PRESSURE -> String.format(java.util.Locale.ROOT, "port pressure: %s busy %.2f of %.2f "
                    + "cycles/iteration", resource, portBound, cyclesPerIteration);
            case DEPENDENCY_CHAIN -> String.format(java.util.Locale.ROOT, "dependency chain: %.2f of %.2f "
                    + "cycles/iteration through instructions %s", chainBound, cyclesPerIteration, chain);
        };
        // A bound is what one resource alone needs; the run can take longer where resources get in each other's way.
        if (!(cyclesPerIteration > cycles() * 1.1 + 0.05)) {
            return what;
        }
        if (!boundPort.isEmpty() && boundPortCycles > portBound + 0.05 && boundPortCycles > cycles() + 0.05) {
            // The port bound spreads micro-ops at best; the machine binds each to a port as it allocates it, by the
            // ports' queues then, and can load one port more (a taken branch's port 6 given ALU micro-ops too).
            return what + String.format(java.util.Locale.ROOT, "; port %s carried %.2f cycles/iteration as micro-ops"
                    + " were bound to ports at allocation (the best spread needs %.2f): that binding explains the"
                    + " other %.2f", boundPort, boundPortCycles, portBound, cyclesPerIteration - cycles());
        }
        return what + String.format(java.util.Locale.ROOT,
                "; no single resource explains the other %.2f (they get in each other's way)",
                cyclesPerIteration - cycles());
    }
}

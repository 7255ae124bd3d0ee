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
 */
public record Bottleneck(Kind kind, double cyclesPerIteration, double frontEndBound, double dispatchBound,
                         double portBound,
                         String busiestPort, double chainBound, List<Integer> chain) {

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
    }

    /** Every bound, for people: {@code front end 1.88 · issue 1.50 · port 5 1.50 · latency chain 1.00}. */
    public String bounds() {
        return String.format(java.util.Locale.ROOT, "front end %.2f · issue %.2f · port %s %.2f · latency chain %.2f",
                frontEndBound, dispatchBound, busiestPort.isEmpty() ? "-" : busiestPort, portBound, chainBound);
    }

    /** One line for people: {@code port pressure: port 0 busy 2.00 of 2.05 cycles/iteration}. */
    public String describe() {
        return switch (kind) {
            case FRONT_END -> String.format("front end: predecode and decode take %.2f of %.2f cycles/iteration",
                    frontEndBound, cyclesPerIteration);
            case DISPATCH_WIDTH -> String.format("issue width: %.2f micro-op cycles of %.2f cycles/iteration",
                    dispatchBound, cyclesPerIteration);
            case PORT_PRESSURE -> String.format("port pressure: port %s busy %.2f of %.2f cycles/iteration",
                    busiestPort, portBound, cyclesPerIteration);
            case DEPENDENCY_CHAIN -> String.format("dependency chain: %.2f cycles/iteration through instructions %s",
                    chainBound, chain);
        };
    }
}

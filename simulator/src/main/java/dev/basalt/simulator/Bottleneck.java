package dev.basalt.simulator;

import java.util.List;
import java.util.Objects;

/**
 * What limits a block in the simulator: the three bounds it can hit and the one closest to what it observed.
 *
 * @param kind             the limiting resource
 * @param cyclesPerIteration what the simulator measured
 * @param dispatchBound    micro-ops per iteration ÷ dispatch width
 * @param portBound        busy cycles per iteration of the busiest port
 * @param busiestPort      that port's name ("0".."7", "Divider", ...)
 * @param chainBound       cycles per iteration of the loop-carried latency chain
 * @param chain            the instructions on that chain, in block order
 */
public record Bottleneck(Kind kind, double cyclesPerIteration, double dispatchBound, double portBound,
                         String busiestPort, double chainBound, List<Integer> chain) {

    /** The resource a block waits for. */
    public enum Kind {
        /** Micro-ops cannot be dispatched faster than the machine's width. */
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

    /** One line for people: {@code port pressure: port 0 busy 2.00 of 2.05 cycles/iteration}. */
    public String describe() {
        return switch (kind) {
            case DISPATCH_WIDTH -> String.format("dispatch width: %.2f micro-op cycles of %.2f cycles/iteration",
                    dispatchBound, cyclesPerIteration);
            case PORT_PRESSURE -> String.format("port pressure: port %s busy %.2f of %.2f cycles/iteration",
                    busiestPort, portBound, cyclesPerIteration);
            case DEPENDENCY_CHAIN -> String.format("dependency chain: %.2f cycles/iteration through instructions %s",
                    chainBound, chain);
        };
    }
}

package dev.basalt.cli;

import dev.basalt.simulator.Simulator;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;

/**
 * The switches that turn off one mechanism of the second-generation simulator each (DESIGN.md §11), mixed into
 * {@code simulate} and {@code eval}: what the README's ablation table is made with.
 */
final class MachineSwitches {
    @Option(names = "--simple-front-end", description = "No predecoder, decoders or micro-op queue: the renamer "
            + "never waits for instructions.")
    boolean simpleFrontEnd;

    @Option(names = "--no-micro-fusion", description = "Every micro-op is its own fused micro-op.")
    boolean noMicroFusion;

    @Option(names = "--no-move-elimination", description = "Register moves execute like any other instruction.")
    boolean noMoveElimination;

    @Option(names = "--execute-time-ports", description = "Micro-ops take any free port when they execute instead "
            + "of the port bound at issue.")
    boolean executeTimePorts;

    @Option(names = "--no-store-forwarding", description = "A load of a stored address waits for the store, then "
            + "its own latency.")
    boolean noStoreForwarding;

    @Option(names = "--no-operation-latency", description = "A load+operation's register operands wait for its "
            + "load as well (the row's latency less the table's load latency) instead of the operation alone.")
    boolean noOperationLatency;

    /** Whether any mechanism is off. */
    boolean any() {
        return simpleFrontEnd || noMicroFusion || noMoveElimination || executeTimePorts || noStoreForwarding
                || noOperationLatency;
    }

    /** {@code options} with the chosen mechanisms off. */
    Simulator.Options apply(Simulator.Options options) {
        Simulator.Options off = options.without(simpleFrontEnd, noMicroFusion, noMoveElimination, executeTimePorts,
                noStoreForwarding);
        return noOperationLatency ? off.withOperationLatency(false) : off;
    }

    /** The switches given, as on the command line ({@code --no-micro-fusion --simple-front-end}), or "". */
    String describe() {
        List<String> on = new ArrayList<>();
        if (simpleFrontEnd) {
            on.add("--simple-front-end");
        }
        if (noMicroFusion) {
            on.add("--no-micro-fusion");
        }
        if (noMoveElimination) {
            on.add("--no-move-elimination");
        }
        if (executeTimePorts) {
            on.add("--execute-time-ports");
        }
        if (noStoreForwarding) {
            on.add("--no-store-forwarding");
        }
        if (noOperationLatency) {
            on.add("--no-operation-latency");
        }
        return String.join(" ", on);
    }
}

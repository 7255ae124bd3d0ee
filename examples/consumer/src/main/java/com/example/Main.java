package com.example;

import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.granite.GraniteModel;
import dev.basalt.simulator.SimulatorEstimator;

import java.util.Locale;

/**
 * Predicts one block's throughput on Haswell with the bundled GRANITE model and with the simulator, and prints
 * both. The block is the first argument (hex machine code), by default {@code mov rsi, rbx; mov rdx, rax;
 * mov rdi, r15}.
 */
public final class Main {

    public static void main(String[] args) throws Exception {
        BasicBlock block = BasicBlock.fromHex(args.length > 0 ? args[0] : "4889de4889c24c89ff");
        Microarchitecture cpu = Microarchitecture.HASWELL;
        try (GraniteModel granite = GraniteModel.bundled()) {
            Prediction learned = granite.predict(block, cpu);
            Prediction simulated = SimulatorEstimator.standard().predict(block, cpu);
            System.out.printf(Locale.ROOT, "block     %s (%d instructions) on %s%n", block.hex(),
                    block.instructions().size(), cpu);
            System.out.printf(Locale.ROOT, "granite   %.4f cycles/iteration%n", learned.cyclesPerIteration());
            System.out.printf(Locale.ROOT, "simulator %.4f cycles/iteration%n", simulated.cyclesPerIteration());
        }
    }
}

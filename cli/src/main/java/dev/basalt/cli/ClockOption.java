package dev.basalt.cli;

import dev.basalt.measure.ClockChain;
import dev.basalt.measure.ClockCheck;
import dev.basalt.measure.MeasureConfig;
import dev.basalt.measure.Measurer;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintWriter;

/**
 * {@code --clock-chain}, mixed into the commands that measure ({@code measure}, {@code calibrate}): the calibration
 * chain that turns timer ticks into core cycles, and the clock check every such run starts with.
 */
final class ClockOption {

    @Option(names = "--clock-chain", paramLabel = "CHAIN=CYCLES", description = "The calibration chain that turns "
            + "timer ticks into core cycles: a dependent chain (hex or assembly) and the cycles one copy takes "
            + "(default 'add rax, rcx=1'; an immediate form is no clock on Golden Cove and later Intel cores, which "
            + "execute it at rename). Every run first times known answers with it and stops if they are more than "
            + "2%% off.")
    String spec;

    /** {@code config} with the chain asked for, if any; a malformed one is bad input naming the option. */
    MeasureConfig apply(MeasureConfig config) {
        return spec == null ? config : BadInputException.check("--clock-chain", () -> config.withClock(
                ClockChain.parse(spec)));
    }

    /**
     * Starts the measurer (which checks the clock); a chain that cannot run is bad input, a clock check that fails
     * is {@link ClockCheck.Refused} (an environment error: exit 1).
     */
    static Measurer open(MeasureConfig config) throws IOException {
        try {
            return new Measurer(config);
        } catch (ClockChain.NotRunnable e) {
            throw new BadInputException("--clock-chain " + e.getMessage());
        }
    }

    /** The check's two lines, each after {@code prefix}: the clock with its known answers, and the host facts. */
    static void print(PrintWriter to, String prefix, ClockCheck.Report r) {
        to.println(prefix + "clock " + r.chain().describe() + ", checked: " + r.answersLine());
        to.println(prefix + "host: " + r.factsLine());
        to.flush();
    }
}

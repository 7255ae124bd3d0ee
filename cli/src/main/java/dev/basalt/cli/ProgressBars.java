package dev.basalt.cli;

import dev.basalt.eval.Evaluator;
import dev.basalt.difftune.Tuner;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.IOException;
import java.io.PrintWriter;

/** One progress bar per phase (on stderr, with an ETA); log lines on the command's output. */
final class ProgressBars implements Tuner.Listener, Evaluator.Listener, dev.basalt.measure.Measurer.Listener,
        AutoCloseable {

    private final PrintWriter out;
    private ProgressBar bar;
    private int width; // the terminal's columns, once known (0: not yet asked)

    ProgressBars(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void phase(String name, long total) {
        close();
        bar = new ProgressBarBuilder().setTaskName(name).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(1000).setConsumer(new ConsoleProgressBarConsumer(System.err, width() - 1))
                .build();
    }

    /**
     * The terminal's width, asked once per command. Left to itself the library builds a terminal to ask it for
     * every bar, on the bar's own thread: 20 ms of a core (probing for a system terminal) at the start of each
     * phase, which in {@code eval} is the start of a timed pass — a fifth of a bounds pass of 10,000 blocks.
     */
    private int width() {
        if (width == 0) {
            try (org.jline.terminal.Terminal t = org.jline.terminal.TerminalBuilder.builder().dumb(true).build()) {
                width = t.getWidth() >= 10 ? t.getWidth() : 80; // a dumb terminal (a pipe, a file) says 0
            } catch (IOException | RuntimeException e) {
                width = 80;
            }
        }
        return width;
    }

    @Override
    public void progress(long done) {
        if (bar != null) {
            bar.stepTo(Math.min(done, bar.getMax()));
        }
    }

    @Override
    public void message(String line) {
        out.println(line);
        out.flush();
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
            bar = null;
        }
    }
}

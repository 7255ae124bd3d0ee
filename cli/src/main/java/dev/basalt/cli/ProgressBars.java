package dev.basalt.cli;

import dev.basalt.eval.Evaluator;
import dev.basalt.difftune.Tuner;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

import java.io.PrintWriter;

/** One progress bar per phase (on stderr, with an ETA); log lines on the command's output. */
final class ProgressBars implements Tuner.Listener, Evaluator.Listener, AutoCloseable {

    private final PrintWriter out;
    private ProgressBar bar;

    ProgressBars(PrintWriter out) {
        this.out = out;
    }

    @Override
    public void phase(String name, long total) {
        close();
        bar = new ProgressBarBuilder().setTaskName(name).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(1000).setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
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

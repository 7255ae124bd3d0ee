package dev.basalt.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process and captures what it prints. */
record CliRun(int exit, String out, String err) {

    static CliRun of(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Basalt.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new CliRun(exit, out.toString(), err.toString());
    }
}

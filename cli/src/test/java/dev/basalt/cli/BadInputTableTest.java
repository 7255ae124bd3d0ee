package dev.basalt.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command given every kind of bad input it can be given — malformed hex, empty, huge, a folder, a binary
 * file, a missing file, an unwritable output, zero and negative sizes, an unknown CPU or model — run in-process;
 * each case must end with its documented exit code (2 for bad input) and at most a few lines on stderr that name
 * the option or file and hold no stack trace and no Java exception name, and must leave no file behind. The cases
 * and their messages are the table {@code docs/bad-input.md}: this test renders it and fails when the committed
 * file differs, writing the new one to {@code target/bad-input.md}; {@code -Dbasalt.regenerate=true} rewrites
 * {@code docs/bad-input.md} in place. Every case fails before any heavy work (no training, tuning or search
 * starts), so the whole table runs in well under a minute.
 */
class BadInputTableTest {

    /** What a case's arguments and messages call the test's scratch folder, so the table does not change. */
    private static final String DIR = "$DIR";

    /** A Java exception's name, a package-qualified class, or a stack frame: none may reach a user. */
    private static final Pattern JAVA = Pattern.compile("Exception|Error:|java\\.|javax\\.|dev\\.basalt\\.|"
            + "NullPointer|NumberFormat|IndexOutOfBounds|\\tat |\\bat [a-z]+\\.[a-z]");

    /**
     * One row of the table.
     *
     * @param command    the command, as typed after {@code basalt}
     * @param inputClass the kind of bad input
     * @param args       the arguments after the command; {@code $DIR} is the scratch folder
     * @param shown      the arguments as the table shows them (a huge argument by its size)
     * @param exit       the exit code it must end with
     * @param names      what stderr must name (the option or the file), or null for a success
     */
    private record Case(String command, String inputClass, List<String> args, String shown, int exit, String names) {
    }

    private final List<Case> cases = new ArrayList<>();

    private void add(String command, String inputClass, int exit, String names, String... args) {
        String shown = Stream.of(args).map(a -> a.length() > 200 ? "<" + (a.length() + 512) / 1024 + " KB of hex>" : a)
                .map(a -> a.isEmpty() ? "''" : a.contains(" ") ? "'" + a + "'" : a).collect(Collectors.joining(" "));
        cases.add(new Case(command, inputClass, List.of(args), shown, exit, names));
    }

    private void bad(String command, String inputClass, String names, String... args) {
        add(command, inputClass, Basalt.EXIT_BAD_INPUT, names, args);
    }

    private void table() {
        String huge = "4801d8".repeat(65536 / 6); // one 64 KB block: 10,922 instructions
        // decode
        bad("decode", "malformed hex", "4889zz", "4889zz");
        bad("decode", "malformed hex (file)", "4889zz", "--input", "$DIR/bad.hex");
        bad("decode", "empty argument", "input 1", "");
        bad("decode", "empty file", "no blocks", "--input", "$DIR/empty.txt");
        bad("decode", "huge block (64 KB of hex)", "16384-byte limit", huge);
        add("decode", "huge file (64 KB, 9,362 blocks)", 0, null, "--input", "$DIR/many.hex");
        bad("decode", "directory", "--input $DIR", "--input", "$DIR");
        bad("decode", "binary file", "--input $DIR/random.bin", "--input", "$DIR/random.bin");
        bad("decode", "missing file", "$DIR/missing.txt", "--input", "$DIR/missing.txt");
        bad("decode", "unknown option value", "--format", "--format", "nosuch", "4801d8");
        bad("decode", "unknown option value", "--memory", "--memory", "nosuch", "4801d8");
        // dataset (--data belongs to dataset, before its subcommand)
        bad("dataset", "malformed rows", "$DIR/bad.hex", "--data", "hsw=$DIR/bad.hex", "stats");
        bad("dataset", "empty file", "$DIR/empty.txt", "--data", "hsw=$DIR/empty.txt", "stats");
        bad("dataset", "directory", "--data $DIR", "--data", "hsw=$DIR", "stats");
        bad("dataset", "binary file", "--data $DIR/random.bin", "--data", "hsw=$DIR/random.bin", "stats");
        bad("dataset", "missing file", "--data $DIR/missing.csv", "--data", "hsw=$DIR/missing.csv", "stats");
        bad("dataset", "unknown CPU (--data)", "nosuch", "--data", "nosuch=$DIR/file.txt", "stats");
        bad("dataset", "unknown CPU", "--mcpu", "stats", "--mcpu", "nosuch");
        bad("dataset", "unknown CPU in a list", "--mcpu", "stats", "--mcpu", "haswell,nosuch");
        bad("dataset", "unwritable output", "--plot", "stats", "--plot", "$DIR/file.txt/plot.png");
        bad("dataset", "unwritable output (/proc)", "--plot", "stats", "--plot", "/proc/basalt/plot.png");
        bad("dataset", "output is a directory", "--plot", "stats", "--plot", "$DIR");
        bad("dataset", "unwritable output", "--out", "split", "--out", "$DIR/file.txt/splits");
        bad("dataset", "unwritable output (/proc)", "--out", "split", "--out", "/proc/basalt/splits");
        bad("dataset", "unknown CPU", "--mcpu", "split", "--out", "$DIR/splits", "--mcpu", "nosuch");
        bad("dataset", "missing file", "--data $DIR/missing.csv", "--data", "hsw=$DIR/missing.csv", "split",
                "--out", "$DIR/splits");
        // simulate
        bad("simulate", "malformed hex", "4889zz", "4889zz");
        bad("simulate", "empty argument", "input 1", "");
        bad("simulate", "empty file", "no blocks", "--input", "$DIR/empty.txt");
        bad("simulate", "huge block (64 KB of hex)", "16384-byte limit", huge);
        add("simulate", "huge file (64 KB, 9,362 blocks)", 0, null, "--iterations", "2", "--format", "json",
                "--input", "$DIR/many.hex");
        bad("simulate", "directory", "--input $DIR", "--input", "$DIR", "4801d8");
        bad("simulate", "binary file", "--input $DIR/random.bin", "--input", "$DIR/random.bin");
        bad("simulate", "missing file", "$DIR/missing.txt", "--input", "$DIR/missing.txt");
        bad("simulate", "zero size", "--iterations", "--iterations", "0", "4801d8");
        bad("simulate", "negative size", "--iterations", "--iterations", "-1", "4801d8");
        bad("simulate", "huge size", "--iterations", "--iterations", "100000000", "4801d8");
        bad("simulate", "not a number", "--iterations", "--iterations", "many", "4801d8");
        bad("simulate", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "4801d8");
        bad("simulate", "unknown CPU in a list", "--mcpu", "--mcpu", "haswell,nosuch", "4801d8");
        bad("simulate", "params: missing file", "--params", "--params", "$DIR/missing.json", "4801d8");
        bad("simulate", "params: directory", "--params", "--params", "$DIR", "4801d8");
        bad("simulate", "params: binary file", "--params", "--params", "$DIR/random.bin", "4801d8");
        bad("simulate", "params: empty file", "--params", "--params", "$DIR/empty.txt", "4801d8");
        bad("simulate", "params: unknown port", "--params", "--params", "$DIR/unknown-port.json", "4801d8");
        bad("simulate", "params: unknown CPU", "--params", "--params", "$DIR/unknown-cpu.json", "4801d8");
        // predict
        bad("predict", "malformed hex", "4889zz", "--model", "simulator", "4889zz");
        bad("predict", "malformed hex (csv)", "4889zz", "--model", "simulator", "--format", "csv", "4889zz");
        bad("predict", "empty argument", "input 1 ''", "--model", "simulator", "");
        bad("predict", "unknown option value", "--format", "--format", "nosuch", "4801d8");
        bad("predict", "empty file", "no blocks", "--input", "$DIR/empty.txt");
        bad("predict", "huge block (64 KB of hex)", "16384-byte limit", "--model", "bounds", "--mcpu", "haswell", huge);
        add("predict", "huge file (64 KB, 9,362 blocks)", 0, null, "--model", "bounds", "--mcpu", "haswell",
                "--format", "csv", "--input", "$DIR/many.hex");
        bad("predict", "directory", "--input $DIR", "--input", "$DIR");
        bad("predict", "binary file", "--input $DIR/random.bin", "--input", "$DIR/random.bin");
        bad("predict", "missing file", "$DIR/missing.txt", "--input", "$DIR/missing.txt");
        add("predict", "Latin-1 byte in an assembly comment", 0, null, "--model", "bounds", "--mcpu", "haswell",
                "--input", "$DIR/latin1.s");
        bad("predict", "Latin-1 byte in an instruction", "line 2, column 5", "--model", "bounds", "--input",
                "$DIR/latin1-code.s");
        bad("predict", "immediate out of range", "line 2, column 1", "--model", "bounds", "--input", "$DIR/imm.s");
        bad("predict", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "4801d8");
        bad("predict", "unknown CPU in a list", "--mcpu", "--mcpu", "haswell,nosuch", "4801d8");
        bad("predict", "unknown model", "--model", "--model", "nosuch", "4801d8");
        bad("predict", "model: directory", "--model", "--model", "$DIR", "4801d8");
        bad("predict", "model: binary file", "--model", "--model", "$DIR/random.bin", "4801d8");
        bad("predict", "model: empty file", "--model", "--model", "$DIR/empty.txt", "4801d8");
        // analyze
        bad("analyze", "malformed (a text file)", "$DIR/bad.hex", "$DIR/bad.hex");
        bad("analyze", "empty file", "$DIR/empty.txt", "$DIR/empty.txt");
        bad("analyze", "huge file (64 KB, not ELF)", "$DIR/many.hex", "$DIR/many.hex");
        bad("analyze", "directory", "$DIR", "$DIR");
        bad("analyze", "binary file", "$DIR/random.bin", "$DIR/random.bin");
        bad("analyze", "missing file", "$DIR/missing", "$DIR/missing");
        bad("analyze", "ELF without code", "$DIR/nocode.o", "--model", "bounds", "$DIR/nocode.o");
        bad("analyze", "immediate out of range (assembly)", "line 2, column 1", "--model", "bounds", "$DIR/imm.s");
        bad("analyze", "negative size", "--top", "--top", "-1", "/bin/true");
        bad("analyze", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "/bin/true");
        bad("analyze", "a CPU list with an unknown CPU", "--mcpu", "--mcpu", "haswell,nosuch", "/bin/true");
        bad("analyze", "unknown model", "--model", "--model", "nosuch", "/bin/true");
        bad("analyze", "unknown function", "--function", "--model", "bounds", "--function", "nosuch", "/bin/true");
        bad("analyze", "profile: missing file", "--profile", "--model", "bounds", "--profile", "$DIR/missing",
                "/bin/true");
        bad("analyze", "profile: binary file", "--profile", "--model", "bounds", "--profile", "$DIR/random.bin",
                "/bin/true");
        bad("analyze", "profile: not perf script's text", "--profile", "--model", "bounds", "--profile",
                "$DIR/bad.hex", "/bin/true");
        bad("analyze", "profile: assembly analyzed", "--profile", "--model", "bounds", "--profile", "$DIR/bad.hex",
                "$DIR/latin1.s");
        // params import (every case fails before llvm-mca runs)
        bad("params import", "malformed rows", "--blocks", "--mcpu", "haswell", "--blocks", "$DIR/bad.hex",
                "--out", "$DIR/t.json");
        bad("params import", "empty file", "--blocks", "--mcpu", "haswell", "--blocks", "$DIR/empty.txt",
                "--out", "$DIR/t.json");
        bad("params import", "directory", "--blocks", "--mcpu", "haswell", "--blocks", "$DIR", "--out",
                "$DIR/t.json");
        bad("params import", "binary file", "--blocks", "--mcpu", "haswell", "--blocks", "$DIR/random.bin",
                "--out", "$DIR/t.json");
        bad("params import", "missing file", "--blocks", "--mcpu", "haswell", "--blocks", "$DIR/missing.csv",
                "--out", "$DIR/t.json");
        bad("params import", "unwritable output", "--out", "--mcpu", "haswell", "--all-forms", "--out",
                "$DIR/file.txt/t.json");
        bad("params import", "unwritable output (/proc)", "--out", "--mcpu", "haswell", "--all-forms", "--out",
                "/proc/basalt/t.json");
        bad("params import", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "--all-forms", "--out", "$DIR/t.json");
        bad("params import", "base: unknown port", "--base", "--mcpu", "haswell", "--all-forms", "--base",
                "$DIR/unknown-port.json", "--out", "$DIR/t.json");
        bad("params import", "base: unknown CPU", "--base", "--mcpu", "haswell", "--all-forms", "--base",
                "$DIR/unknown-cpu.json", "--out", "$DIR/t.json");
        // params coverage
        bad("params coverage", "missing file", "$DIR/missing", "$DIR/missing");
        bad("params coverage", "negative size", "--top", "--top", "-1", "/bin/true");
        bad("params coverage", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "/bin/true");
        bad("params coverage", "params: missing file", "--params", "--params", "$DIR/missing.json", "/bin/true");
        bad("params coverage", "params: directory", "--params", "--params", "$DIR", "/bin/true");
        bad("params coverage", "params: binary file", "--params", "--params", "$DIR/random.bin", "/bin/true");
        bad("params coverage", "params: empty file", "--params", "--params", "$DIR/empty.txt", "/bin/true");
        bad("params coverage", "params: unknown port", "--params", "--params", "$DIR/unknown-port.json",
                "/bin/true");
        bad("params coverage", "params: unknown CPU", "--params", "--params", "$DIR/unknown-cpu.json",
                "/bin/true");
        // train (every case fails before a model is made)
        bad("train", "malformed rows", "$DIR/bad.hex", "granite", "--data", "hsw=$DIR/bad.hex", "--out",
                "$DIR/m.granite");
        bad("train", "empty file", "$DIR/empty.txt", "granite", "--data", "hsw=$DIR/empty.txt", "--out",
                "$DIR/m.granite");
        bad("train", "directory", "--data", "granite", "--data", "hsw=$DIR", "--out", "$DIR/m.granite");
        bad("train", "binary file", "$DIR/random.bin", "granite", "--data", "hsw=$DIR/random.bin", "--out",
                "$DIR/m.granite");
        bad("train", "missing file", "$DIR/missing.csv", "granite", "--data", "hsw=$DIR/missing.csv", "--out",
                "$DIR/m.granite");
        bad("train", "missing folder", "--data-dir", "granite", "--data-dir", "$DIR/missing", "--out",
                "$DIR/m.granite");
        bad("train", "unwritable output", "--out", "granite", "--out", "$DIR/file.txt/m.granite");
        bad("train", "unwritable output (/proc)", "--out", "granite", "--out", "/proc/basalt/m.granite");
        bad("train", "output is a directory", "--out", "granite", "--out", "$DIR");
        bad("train", "zero size", "--epochs", "granite", "--epochs", "0", "--out", "$DIR/m.granite");
        bad("train", "negative size", "--epochs", "granite", "--epochs", "-1", "--out", "$DIR/m.granite");
        bad("train", "zero size", "--max-train", "granite", "--max-train", "0", "--out", "$DIR/m.granite");
        bad("train", "negative size", "--max-train", "granite", "--max-train", "-5", "--out", "$DIR/m.granite");
        bad("train", "zero size", "--iterations", "granite", "--iterations", "0", "--out", "$DIR/m.granite");
        bad("train", "zero rate", "--lr", "granite", "--lr", "0", "--out", "$DIR/m.granite");
        bad("train", "unknown CPU", "--mcpu", "granite", "--mcpu", "nosuch", "--out", "$DIR/m.granite");
        bad("train", "unknown CPU in a list", "--mcpu", "granite", "--mcpu", "haswell,nosuch", "--out",
                "$DIR/m.granite");
        bad("train", "unknown model", "nosuch", "nosuch", "--out", "$DIR/m.granite");
        bad("train", "missing file", "--pretrain", "granite", "--pretrain", "$DIR/missing.csv", "--out",
                "$DIR/m.granite");
        bad("train", "binary file", "--pretrain", "granite", "--pretrain", "$DIR/random.bin", "--out",
                "$DIR/m.granite");
        bad("train", "no usable blocks", "--pretrain", "granite", "--pretrain", "$DIR/bad.hex", "--out",
                "$DIR/m.granite");
        bad("train", "zero size", "--pretrain-epochs", "granite", "--pretrain", "$DIR/bad.hex",
                "--pretrain-epochs", "0", "--out", "$DIR/m.granite");
        bad("train", "unknown model", "--pretrain-target", "granite", "--pretrain", "$DIR/bad.hex",
                "--pretrain-target", "nosuch", "--out", "$DIR/m.granite");
        // tune (every case fails before sampling starts)
        bad("tune", "malformed rows", "$DIR/bad.hex", "--data", "$DIR/bad.hex", "--out", "$DIR/t.json");
        bad("tune", "empty file", "$DIR/empty.txt", "--data", "$DIR/empty.txt", "--out", "$DIR/t.json");
        bad("tune", "directory", "--data", "--data", "$DIR", "--out", "$DIR/t.json");
        bad("tune", "binary file", "$DIR/random.bin", "--data", "$DIR/random.bin", "--out", "$DIR/t.json");
        bad("tune", "missing file", "--data", "--data", "$DIR/missing.csv", "--out", "$DIR/t.json");
        bad("tune", "unlabelled: missing file", "$DIR/missing.csv", "--unlabelled", "$DIR/missing.csv", "--max-train",
                "1", "--out", "$DIR/t.json");
        bad("tune", "unwritable output", "--out", "--out", "$DIR/file.txt/t.json");
        bad("tune", "unwritable output (/proc)", "--out", "--out", "/proc/basalt/t.json");
        bad("tune", "unwritable work folder", "--work", "--work", "$DIR/file.txt/work", "--out", "$DIR/t.json");
        bad("tune", "zero size", "--samples", "--samples", "0", "--out", "$DIR/t.json");
        bad("tune", "negative size", "--samples", "--samples", "-1", "--out", "$DIR/t.json");
        bad("tune", "zero size", "--held-out", "--held-out", "0", "--out", "$DIR/t.json");
        bad("tune", "negative size", "--held-out", "--held-out", "-1", "--out", "$DIR/t.json");
        bad("tune", "zero size", "--surrogate-epochs", "--surrogate-epochs", "0", "--out", "$DIR/t.json");
        bad("tune", "negative size", "--passes", "--passes", "-1", "--out", "$DIR/t.json");
        bad("tune", "negative size", "--max-train", "--max-train", "-1", "--out", "$DIR/t.json");
        bad("tune", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "--out", "$DIR/t.json");
        bad("tune", "a CPU list (one CPU)", "--mcpu", "--mcpu", "haswell,skylake", "--out", "$DIR/t.json");
        bad("tune", "params: unknown port", "--params", "--params", "$DIR/unknown-port.json", "--max-train", "1",
                "--out", "$DIR/t.json");
        bad("tune", "params: unknown CPU", "--params", "--params", "$DIR/unknown-cpu.json", "--max-train", "1",
                "--out", "$DIR/t.json");
        // explain (every case fails before the search)
        bad("explain", "malformed hex", "4889zz", "--model", "simulator", "4889zz");
        bad("explain", "empty argument", "block ''", "--model", "simulator", "");
        bad("explain", "empty file", "--input", "--model", "simulator", "--input", "$DIR/empty.txt");
        bad("explain", "huge file (64 KB, 9,362 blocks)", "explain takes one block", "--model", "simulator",
                "--input", "$DIR/many.hex");
        bad("explain", "directory", "--input $DIR", "--input", "$DIR");
        bad("explain", "binary file", "--input $DIR/random.bin", "--input", "$DIR/random.bin");
        bad("explain", "missing file", "$DIR/missing.txt", "--input", "$DIR/missing.txt");
        bad("explain", "unwritable output", "--out", "--model", "simulator", "--out", "$DIR/file.txt/e.html",
                "4801d8");
        bad("explain", "unwritable output (/proc)", "--out", "--model", "simulator", "--out", "/proc/basalt/e.html",
                "4801d8");
        bad("explain", "zero size", "--coverage-samples", "--coverage-samples", "0", "4801d8");
        bad("explain", "negative size", "--coverage-samples", "--coverage-samples", "-1", "4801d8");
        bad("explain", "zero size", "--permutations", "--permutations", "0", "4801d8");
        bad("explain", "negative size", "--permutations", "--permutations", "-1", "4801d8");
        bad("explain", "zero size", "--bucket", "--bucket", "0", "4801d8");
        bad("explain", "negative size", "--bucket", "--bucket", "-1", "4801d8");
        bad("explain", "zero size", "--threshold", "--threshold", "0", "4801d8");
        bad("explain", "negative size", "--threshold", "--threshold", "-1", "4801d8");
        bad("explain", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "4801d8");
        bad("explain", "a CPU list for one page", "--mcpu", "--mcpu", "haswell,skylake", "--format", "html", "4801d8");
        bad("explain", "unknown model", "--model", "--model", "nosuch", "4801d8");
        // eval (every case fails before an estimator runs)
        bad("eval", "malformed split", "split", "--split", "nosuch", "--out", "$DIR/eval");
        bad("eval", "empty model list", "--models", "--models", "", "--out", "$DIR/eval");
        bad("eval", "empty result (a CPU without measurements)", "--mcpu", "--models", "bounds", "--mcpu", "znver3",
                "--out", "$DIR/eval");
        bad("eval", "directory (as a model)", "--models", "--models", "$DIR", "--out", "$DIR/eval");
        bad("eval", "binary file (as a model)", "--models", "--models", "$DIR/random.bin", "--out", "$DIR/eval");
        bad("eval", "missing file (as a model)", "$DIR/missing.granite", "--models", "$DIR/missing.granite", "--out",
                "$DIR/eval");
        bad("eval", "unwritable output", "--out", "--out", "$DIR/file.txt/eval");
        bad("eval", "unwritable output (/proc)", "--out", "--out", "/proc/basalt/eval");
        bad("eval", "unwritable output before a bad model", "--out", "--models", "nosuch", "--out",
                "$DIR/file.txt/eval");
        bad("eval", "unknown CPU", "--mcpu", "--mcpu", "nosuch", "--out", "$DIR/eval");
        bad("eval", "unknown CPU in a list", "--mcpu", "--mcpu", "haswell,nosuch", "--out", "$DIR/eval");
        bad("eval", "unknown model", "nosuch", "--models", "nosuch", "--out", "$DIR/eval");
        bad("predict", "unknown option value", "--memory", "--model", "simulator", "--memory", "nosuch", "4801d8");
        bad("predict", "a model without memory", "--memory", "--model", "granite", "--memory", "distinct", "4801d8");
        bad("simulate", "unknown option value", "--memory", "--memory", "nosuch", "4801d8");
        bad("explain", "a model without memory", "--memory", "--model", "granite", "--memory", "distinct", "4801d8");
        bad("eval", "unknown option value", "--memory", "--memory", "nosuch", "--out", "$DIR/eval");
        // measure (every case fails before a block runs; a block that cannot run is an error row, docs/measure-hostile.md)
        bad("measure", "no output", "--out", "4801d8");
        bad("measure", "empty file", "no blocks", "--input", "$DIR/empty.txt", "--out", "$DIR/m.csv");
        bad("measure", "directory", "--input $DIR", "--input", "$DIR", "--out", "$DIR/m.csv");
        bad("measure", "binary file", "--input $DIR/random.bin", "--input", "$DIR/random.bin", "--out", "$DIR/m.csv");
        bad("measure", "missing file", "$DIR/missing.txt", "--input", "$DIR/missing.txt", "--out", "$DIR/m.csv");
        bad("measure", "directory (as output)", "--out", "--out", "$DIR", "4801d8");
        bad("measure", "unwritable output", "--out", "--out", "$DIR/file.txt/m.csv", "4801d8");
        bad("measure", "unwritable output (/proc)", "--out", "--out", "/proc/basalt/m.csv", "4801d8");
        bad("measure", "unknown option value", "--format", "--format", "nosuch", "--out", "$DIR/m.csv", "4801d8");
        bad("measure", "unknown option value", "--timer", "--timer", "nosuch", "--out", "$DIR/m.csv", "4801d8");
        bad("measure", "zero size", "--jobs", "--jobs", "0", "--out", "$DIR/m.csv", "4801d8");
        bad("measure", "negative size", "--tries", "--tries", "-1", "--out", "$DIR/m.csv", "4801d8");
        bad("measure", "zero size", "--time-limit", "--time-limit", "0", "--out", "$DIR/m.csv", "4801d8");
        bad("measure", "malformed option value", "--clock-chain", "--clock-chain", "add rax, rcx", "--out",
                "$DIR/m.csv", "4801d8");
        bad("measure", "malformed option value", "--clock-chain", "--clock-chain", "add rax, rcx=fast", "--out",
                "$DIR/m.csv", "4801d8");
        bad("measure", "unknown instruction", "--clock-chain", "--clock-chain", "nosuch rax=1", "--out",
                "$DIR/m.csv", "4801d8");
        bad("measure", "a clock that cannot run", "--clock-chain", "--clock-chain", "push rax=1", "--out",
                "$DIR/m.csv", "4801d8");
        // calibrate (every case fails before a block is measured)
        bad("calibrate", "no output", "--out");
        bad("calibrate", "too small", "--blocks", "--blocks", "5", "--out", "$DIR/cal");
        bad("calibrate", "negative size", "--noise-blocks", "--noise-blocks", "-1", "--out", "$DIR/cal");
        bad("calibrate", "unknown CPU", "--from", "--from", "pentium", "--out", "$DIR/cal");
        bad("calibrate", "unwritable output", "--out", "--out", "$DIR/file.txt/cal");
        bad("calibrate", "zero size", "--jobs", "--jobs", "0", "--out", "$DIR/cal");
        bad("calibrate", "zero size", "--clock-chain", "--clock-chain", "add rax, rcx=0", "--out", "$DIR/cal");
        bad("calibrate", "missing file", "--measurements", "--measurements", "$DIR/missing.csv", "--out", "$DIR/cal");
        bad("calibrate", "binary file", "--measurements", "--measurements", "$DIR/random.bin", "--out", "$DIR/cal");
        // serve (each fails before it listens)
        bad("serve", "port out of range", "--port", "--port", "70000");
        bad("serve", "zero time limit", "--timeout", "--timeout", "0");
        bad("serve", "request limit too small", "--max-request", "--max-request", "10");
        bad("serve", "unknown address", "nosuch.invalid", "--host", "nosuch.invalid", "--port", "0");
    }

    /** The scratch files the cases read. */
    private static void fixtures(Path dir) throws IOException {
        Files.writeString(dir.resolve("empty.txt"), "");
        Files.writeString(dir.resolve("bad.hex"), "4889zz\n4801zz\n");
        Files.writeString(dir.resolve("file.txt"), "a file, not a folder\n");
        Files.writeString(dir.resolve("many.hex"), "4801d8\n".repeat(65536 / 7));
        byte[] random = new byte[4096];
        new Random(19).nextBytes(random);
        Files.write(dir.resolve("random.bin"), random);
        // assembly with a Latin-1 byte (é): in a comment it is harmless, in an instruction it is named
        Files.write(dir.resolve("latin1.s"), "add rax, rbx  # caf\u00e9\nimul rax, rax\n"
                .getBytes(StandardCharsets.ISO_8859_1));
        Files.write(dir.resolve("latin1-code.s"), "add rax, rbx\nadd r\u00e9x, rbx\n"
                .getBytes(StandardCharsets.ISO_8859_1));
        Files.writeString(dir.resolve("imm.s"), "add rax, rbx\nadd eax, 0x123456789\n");
        // an x86-64 ELF header with no section at all: an ELF file without code
        byte[] elf = new byte[64];
        byte[] head = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
        System.arraycopy(head, 0, elf, 0, head.length);
        elf[16] = 1;      // e_type: relocatable
        elf[18] = 62;     // e_machine: x86-64
        elf[20] = 1;      // e_version
        elf[52] = 64;     // e_ehsize
        elf[58] = 64;     // e_shentsize
        Files.write(dir.resolve("nocode.o"), elf);
        String table;
        try (InputStream in = BadInputTableTest.class.getResourceAsStream("/dev/basalt/simulator/params/haswell.json")) {
            table = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Files.writeString(dir.resolve("unknown-cpu.json"), table.replaceFirst("\"mcpu\" : \"haswell\"",
                "\"mcpu\" : \"nosuch\""));
        Files.writeString(dir.resolve("unknown-port.json"), table.replaceFirst("\"06\" : 2", "\"09\" : 2"));
    }

    /** Every file under {@code dir}, relative to it. */
    private static List<String> listing(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.map(p -> dir.relativize(p).toString()).sorted().toList();
        }
    }

    @Test
    void everyCommandRejectsEveryBadInputWithOneLineNamingItAndLeavesNoFile(@TempDir Path dir) throws IOException {
        long t0 = System.nanoTime();
        fixtures(dir);
        table();
        List<String> before = listing(dir);
        List<String> problems = new ArrayList<>();
        Map<Case, String> messages = new LinkedHashMap<>();
        Map<Case, Integer> exits = new LinkedHashMap<>();
        for (Case c : cases) {
            List<String> args = new ArrayList<>(List.of(c.command().split(" ")));
            c.args().forEach(a -> args.add(a.replace(DIR, dir.toString())));
            CliRun r = CliRun.of(args.toArray(String[]::new));
            String err = r.err().replace(dir.toString(), DIR).strip();
            messages.put(c, err);
            exits.put(c, r.exit());
            String where = c.command() + " " + c.shown() + " (" + c.inputClass() + "): ";
            if (r.exit() != c.exit()) {
                problems.add(where + "exit " + r.exit() + ", expected " + c.exit() + "; stderr: " + err);
            }
            if (JAVA.matcher(err).find()) {
                problems.add(where + "a stack trace or Java name on stderr: " + err);
            }
            if (err.lines().count() > 3 || err.length() > 600) {
                problems.add(where + "more than a few short lines on stderr: " + err);
            }
            if (c.names() != null && !err.contains(c.names())) {
                problems.add(where + "stderr does not name '" + c.names() + "': " + err);
            }
            List<String> after = listing(dir);
            if (!after.equals(before)) {
                problems.add(where + "left files behind: " + after.stream().filter(f -> !before.contains(f)).toList());
                try (Stream<Path> s = Files.walk(dir)) { // clean up, so the next case starts from the fixtures
                    for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        if (!before.contains(dir.relativize(p).toString())) {
                            Files.delete(p);
                        }
                    }
                }
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        System.out.printf(java.util.Locale.ROOT, "BadInputTableTest: %d cases in %.1f s%n", cases.size(), seconds);
        String markdown = markdown(messages, exits);
        Path project = Path.of(System.getProperty("basalt.project.dir", ".."));
        Path committed = project.resolve("docs").resolve("bad-input.md");
        if (Boolean.getBoolean("basalt.regenerate")) {
            Files.writeString(committed, markdown);
        }
        String current = Files.exists(committed) ? Files.readString(committed) : "";
        Path fresh = project.resolve("cli").resolve("target").resolve("bad-input.md");
        Files.createDirectories(fresh.getParent());
        Files.writeString(fresh, markdown);
        assertTrue(problems.isEmpty(), problems.size() + " of " + cases.size() + " cases misbehave:\n"
                + String.join("\n", problems));
        assertEquals(current, markdown, "docs/bad-input.md is not what the commands print now: the new table is "
                + fresh + "; copy it over docs/bad-input.md, or run this test with -Dbasalt.regenerate=true");
    }

    private String markdown(Map<Case, String> messages, Map<Case, Integer> exits) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Bad input: what each command says\n\n");
        sb.append("<!-- Generated by cli/src/test/java/dev/basalt/cli/BadInputTableTest.java; do not edit by hand. -->\n");
        sb.append("Generated by `BadInputTableTest` (module `cli`), which runs every case below and fails when this "
                + "file differs from what the commands print now (it then writes the new table to "
                + "`cli/target/bad-input.md`). To regenerate it in place:\n\n");
        sb.append("```sh\nmvn -B -o -q test -pl cli -am -Dtest=BadInputTableTest -Dsurefire.failIfNoSpecifiedTests=false "
                + "-Dbasalt.regenerate=true\n```\n\n");
        sb.append("Exit status: 0 success; 2 bad input, with one line on stderr naming the command and the option, "
                + "file or block (a usage error adds a second line pointing to `--help`); 1 anything else (a missing "
                + "tool, or a bug). For every case the test also checks that stderr holds no stack trace and no Java "
                + "exception name, and that no file (partial, temporary or empty) is left behind. `$DIR` is the test's "
                + "scratch folder, holding `empty.txt` (empty), `bad.hex` (malformed hex rows), `many.hex` (64 KB: "
                + "9,362 one-instruction blocks), `random.bin` (4 KB of random bytes), `file.txt` (a file, so "
                + "`$DIR/file.txt/x` cannot be written), `latin1.s` and `latin1-code.s` (Intel assembly with a "
                + "Latin-1 `é` in a comment, and in a register name), `imm.s` (`add eax, 0x123456789` on line 2), "
                + "`nocode.o` (an x86-64 ELF header with no sections), and two simulator tables changed from the bundled Haswell "
                + "one: `unknown-port.json` (a row names port 9) and `unknown-cpu.json` (CPU `nosuch`). `/proc/basalt/x` "
                + "cannot be created even by root. A huge block is one 64 KB hex argument (10,922 instructions), over the decoder's 16 KB limit for one block.\n");
        Map<String, List<Case>> byCommand = new LinkedHashMap<>();
        cases.forEach(c -> byCommand.computeIfAbsent(c.command(), k -> new ArrayList<>()).add(c));
        for (Map.Entry<String, List<Case>> e : byCommand.entrySet()) {
            sb.append("\n## basalt ").append(e.getKey()).append(" (").append(e.getValue().size()).append(" cases)\n\n");
            sb.append("| input | arguments | exit | stderr |\n|---|---|---:|---|\n");
            for (Case c : e.getValue()) {
                String err = messages.get(c);
                String shown = c.exit() == 0 ? "(output; stderr: " + (err.isEmpty() ? "nothing" : err) + ")" : err;
                sb.append("| ").append(c.inputClass()).append(" | `").append(c.shown().replace("|", "\\|"))
                        .append("` | ").append(exits.get(c)).append(" | ")
                        .append(cell(shown)).append(" |\n");
            }
        }
        return sb.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").lines()
                .collect(Collectors.joining("<br>"));
    }
}

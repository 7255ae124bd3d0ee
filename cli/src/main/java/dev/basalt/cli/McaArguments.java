package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * llvm-mca's command line, read as llvm-mca reads it (LLVM's option library): one or two dashes, a value after
 * {@code =} or as the next argument, a flag with an optional {@code =true|false}, one input file or {@code -}
 * (standard input, the default). An option llvm-mca has but Basalt does not serve is refused by name; an option
 * llvm-mca does not have is refused as unknown — never ignored, so a script learns at once what it cannot rely on.
 *
 * @param input           the assembly file, or "-" for standard input
 * @param output          where to write ({@code -o}), or "-" for standard output
 * @param cpu             the CPU ({@code -mcpu}; Basalt's names and aliases, and llvm's names of the same cores)
 * @param iterations      iterations to simulate ({@code -iterations}; 0 or absent: 100, as llvm-mca)
 * @param instructionInfo print the instruction info view
 * @param resourcePressure print the resource views
 * @param summary         print the summary view
 * @param timeline        print the timeline view, of at most {@code timelineIterations} iterations (default 10) and
 *                        {@code timelineCycles} cycles (default 80), and of the simulator's first 64 instances
 * @param timelineIterations the timeline's iterations at most
 * @param timelineCycles  the timeline's cycles at most
 * @param json            write llvm-mca's JSON (CodeRegions, SimulationParameters, TargetInfo) instead of text
 * @param intel           print instructions in Intel syntax ({@code -output-asm-variant=1}, {@code
 *                        -x86-asm-syntax=intel}); else AT&T, llvm-mca's default
 * @param model           a learned model whose cycles to add to the summary ({@code --basalt-model}), or null
 */
record McaArguments(String input, String output, Microarchitecture cpu, int iterations, boolean instructionInfo,
                    boolean resourcePressure, boolean summary, boolean timeline, int timelineIterations,
                    int timelineCycles, boolean json, boolean intel, String model, boolean bottleneck,
                    boolean dispatchStats, boolean schedulerStats, boolean retireStats, boolean registerFileStats,
                    String cpuAsked) {

    /** Whether any statistics view is asked for: they count a traced run of every iteration. */
    boolean anyStats() {
        return dispatchStats || schedulerStats || retireStats || registerFileStats;
    }

    /** How an option takes its value. */
    private enum Kind { FLAG, VALUE }

    /** llvm-mca's options that Basalt serves. */
    private static final Map<String, Kind> SERVED = Map.ofEntries(
            Map.entry("mtriple", Kind.VALUE), Map.entry("march", Kind.VALUE), Map.entry("mcpu", Kind.VALUE),
            Map.entry("iterations", Kind.VALUE), Map.entry("o", Kind.VALUE),
            Map.entry("resource-pressure", Kind.FLAG), Map.entry("timeline", Kind.FLAG), Map.entry("json", Kind.FLAG),
            Map.entry("timeline-max-iterations", Kind.VALUE), Map.entry("timeline-max-cycles", Kind.VALUE),
            Map.entry("instruction-info", Kind.FLAG), Map.entry("summary-view", Kind.FLAG),
            Map.entry("output-asm-variant", Kind.VALUE), Map.entry("x86-asm-syntax", Kind.VALUE),
            Map.entry("skip-unsupported-instructions", Kind.VALUE), Map.entry("basalt-model", Kind.VALUE),
            Map.entry("help", Kind.FLAG), Map.entry("h", Kind.FLAG),
            Map.entry("bottleneck-analysis", Kind.FLAG), Map.entry("all-views", Kind.FLAG),
            Map.entry("all-stats", Kind.FLAG), Map.entry("dispatch-stats", Kind.FLAG),
            Map.entry("scheduler-stats", Kind.FLAG), Map.entry("retire-stats", Kind.FLAG),
            Map.entry("register-file-stats", Kind.FLAG), Map.entry("instruction-tables", Kind.FLAG));

    /** llvm-mca's options that Basalt does not serve (yet), with why: refused by name. */
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("mattr", "Basalt's CPU tables fix the instruction set extensions"),
            Map.entry("dispatch", "Basalt's CPU tables fix the dispatch width"),
            Map.entry("register-file-size", "Basalt's CPU tables fix the register files"),
            Map.entry("squash-cyclic-dependencies", "not an option of Basalt's simulator"),
            Map.entry("noalias", "Basalt's memory models are --basalt-memory's, not llvm-mca's alias switch"),
            Map.entry("lqueue", "Basalt's CPU tables fix the load queue"),
            Map.entry("squeue", "Basalt's CPU tables fix the store queue"),
            Map.entry("show-encoding", "encodings are not printed yet"),
            Map.entry("show-barriers", "barriers are not printed yet"),
            Map.entry("disable-cb", "Basalt has no custom behaviour to disable"),
            Map.entry("disable-im", "Basalt has no instrument manager"),
            Map.entry("call-latency", "calls are simulated, not given a latency"),
            Map.entry("print-imm-hex", "immediates are printed as the syntax prints them"));

    /** llvm's names of the cores Basalt knows under other names. */
    private static final Map<String, String> LLVM_NAMES = Map.ofEntries(
            Map.entry("skylake-avx512", "skylake"), Map.entry("skx", "skylake"), Map.entry("cascadelake", "skylake"),
            Map.entry("kabylake", "skylake"), Map.entry("coffeelake", "skylake"), Map.entry("broadwell", "haswell"),
            Map.entry("core-avx2", "haswell"), Map.entry("core-avx-i", "ivybridge"),
            Map.entry("sapphirerapids", "graniterapids"), Map.entry("emeraldrapids", "graniterapids"),
            Map.entry("alderlake", "graniterapids"), Map.entry("raptorlake", "graniterapids"),
            Map.entry("meteorlake", "graniterapids"),
            // What Compiler Explorer passes: -mcpu=generic when the compiler names no CPU, gcc's -march levels.
            Map.entry("generic", "haswell"), Map.entry("x86-64", "haswell"), Map.entry("x86-64-v2", "haswell"),
            Map.entry("x86-64-v3", "haswell"), Map.entry("x86-64-v4", "skylake"));

    /** The usage text, for {@code -help}. */
    static final String USAGE = String.join("\n",
            "Usage: basalt mca [llvm-mca options] [FILE | -]",
            "llvm-mca's command line and views, filled by Basalt's simulator (basalt-mca stands in for llvm-mca).",
            "Reads assembly (AT&T or Intel; # LLVM-MCA-BEGIN name / # LLVM-MCA-END regions) from FILE or stdin.",
            "  -mtriple=x86_64-...  -march=x86-64  -mcpu=CPU (default haswell; llvm names map to Basalt's cores)",
            "  -iterations=N (default 100)  -o FILE",
            "  -summary-view -instruction-info -resource-pressure (each default on; =false to leave out)",
            "  -timeline [-timeline-max-iterations=N] [-timeline-max-cycles=N] (of the first 64 instances)",
            "  -json (llvm-mca's JSON, with a Basalt object per region)",
            "  -output-asm-variant=0|1  -x86-asm-syntax=att|intel  -skip-unsupported-instructions=none",
            "  --basalt-model=NAME  a learned model's cycles beside the simulator's (granite, ithemal, bounds)",
            "  -bottleneck-analysis  -dispatch-stats -scheduler-stats -retire-stats -register-file-stats",
            "  -all-stats (the four statistics views)  -all-views (every view; an explicit =false still wins)",
            "  -instruction-tables (instruction info and resource pressure only, as llvm-mca's static tables)",
            "After llvm-mca's views, Basalt's own: the bound that wins, the bottleneck, the interval and notes.",
            "Refused by name: options whose numbers Basalt's CPU tables fix (-mattr, -dispatch,",
            "-register-file-size, -lqueue, -squeue) and views Basalt does not print (-show-encoding, ...).");

    /** Reads {@code args}; a usage mistake is a {@link BadInputException} naming the option. */
    static McaArguments parse(List<String> args) {
        String input = null;
        String output = "-";
        Microarchitecture cpu = Microarchitecture.HASWELL;
        String cpuAsked = "haswell";
        int iterations = 100;
        Boolean info = null;
        Boolean pressure = null;
        Boolean summary = null;
        boolean intel = false;
        Boolean timeline = null;
        Boolean bottleneck = null;
        Boolean dispatchStats = null;
        Boolean schedulerStats = null;
        Boolean retireStats = null;
        Boolean registerFileStats = null;
        boolean tables = false;
        Boolean allViews = null;
        Boolean allStats = null;
        boolean json = false;
        int timelineIterations = 10;
        int timelineCycles = 80;
        String model = null;
        boolean inputsOnly = false;
        for (int k = 0; k < args.size(); k++) {
            String a = args.get(k);
            if (inputsOnly || !a.startsWith("-") || a.equals("-")) {
                if (input != null) {
                    throw new BadInputException("one input file only; got '" + input + "' and '" + a
                            + "'");
                }
                input = a;
                continue;
            }
            if (a.equals("--")) {
                inputsOnly = true;
                continue;
            }
            String body = a.startsWith("--") ? a.substring(2) : a.substring(1);
            int eq = body.indexOf('=');
            String name = eq < 0 ? body : body.substring(0, eq);
            String attached = eq < 0 ? null : body.substring(eq + 1);
            if (REFUSED.containsKey(name)) {
                throw new BadInputException("option -" + name + " is not supported: " + REFUSED.get(name));
            }
            Kind kind = SERVED.get(name);
            if (kind == null) {
                throw new BadInputException("unknown option '" + a + "' (basalt mca -help lists the "
                        + "options it serves)");
            }
            String value;
            if (kind == Kind.VALUE) {
                if (attached != null) {
                    value = attached;
                } else if (k + 1 < args.size()) {
                    value = args.get(++k);
                } else {
                    throw new BadInputException("option -" + name + " needs a value");
                }
            } else {
                value = attached == null ? "true" : attached;
                if (!value.equals("true") && !value.equals("false") && !value.equals("1") && !value.equals("0")) {
                    throw new BadInputException("option -" + name + " takes true or false, got '"
                            + value + "'");
                }
            }
            boolean on = value.equals("true") || value.equals("1");
            switch (name) {
                case "help", "h" -> throw new HelpRequested();
                case "mtriple" -> {
                    String arch = value.toLowerCase(Locale.ROOT);
                    if (!(arch.startsWith("x86_64") || arch.startsWith("x86-64") || arch.startsWith("amd64"))) {
                        throw new BadInputException("-mtriple=" + value + ": Basalt models x86-64 only");
                    }
                }
                case "march" -> {
                    if (!value.equals("x86-64") && !value.equals("x86_64")) {
                        throw new BadInputException("-march=" + value + ": Basalt models x86-64 only");
                    }
                }
                case "mcpu" -> {
                    cpu = cpu(value);
                    cpuAsked = value;
                }
                case "iterations" -> {
                    iterations = count("iterations", value, 0, 100_000);
                    iterations = iterations == 0 ? 100 : iterations;
                }
                case "o" -> output = value;
                case "resource-pressure" -> pressure = on;
                case "timeline" -> timeline = on;
                case "json" -> json = on;
                case "timeline-max-iterations" -> {
                    timelineIterations = count(name, value, 0, 100_000);
                    timelineIterations = timelineIterations == 0 ? 10 : timelineIterations;
                }
                case "timeline-max-cycles" -> {
                    timelineCycles = count(name, value, 0, 100_000);
                    timelineCycles = timelineCycles == 0 ? 80 : timelineCycles;
                }
                case "instruction-info" -> info = on;
                case "summary-view" -> summary = on;
                case "bottleneck-analysis" -> bottleneck = on;
                case "dispatch-stats" -> dispatchStats = on;
                case "scheduler-stats" -> schedulerStats = on;
                case "retire-stats" -> retireStats = on;
                case "register-file-stats" -> registerFileStats = on;
                case "all-views" -> allViews = on;
                case "instruction-tables" -> tables = on;
                case "all-stats" -> allStats = on;
                case "output-asm-variant" -> {
                    int v = count(name, value, 0, 1);
                    intel = v == 1;
                }
                case "x86-asm-syntax" -> {
                    if (!value.equals("intel") && !value.equals("att")) {
                        throw new BadInputException("-x86-asm-syntax=" + value + ": att or intel");
                    }
                    intel = value.equals("intel");
                }
                case "skip-unsupported-instructions" -> {
                    if (!value.equals("none")) {
                        throw new BadInputException("-skip-unsupported-instructions=" + value + " is not "
                                + "supported: an instruction Basalt cannot read is an error naming its line");
                    }
                }
                case "basalt-model" -> model = value;
                default -> throw new IllegalStateException("served option without a meaning: " + name);
            }
        }
        // As llvm-mca: -all-views and -all-stats set the views they cover that were not given explicitly
        // (-all-views=false turns the default views off too).
        if (tables) { // llvm-mca's static tables: instruction info and resource pressure, nothing simulated
            return new McaArguments(input == null ? "-" : input, output, cpu, iterations, true, true, false, false,
                    timelineIterations, timelineCycles, json, intel, model, false, false, false, false, false,
                    cpuAsked);
        }
        boolean views = allViews == null || allViews;
        boolean every = allViews != null && allViews;
        boolean stats = allStats != null ? allStats : every;
        return new McaArguments(input == null ? "-" : input, output, cpu, iterations, or(info, views),
                or(pressure, views), or(summary, views), or(timeline, every), timelineIterations, timelineCycles,
                json, intel, model, or(bottleneck, every), or(dispatchStats, stats), or(schedulerStats, stats),
                or(retireStats, stats), or(registerFileStats, stats), cpuAsked);
    }

    private static boolean or(Boolean given, boolean otherwise) {
        return given != null ? given : otherwise;
    }

    /** {@code -help} asked: the caller prints the usage. */
    static final class HelpRequested extends RuntimeException {
        HelpRequested() {
            super("help", null, false, false);
        }
    }

    private static Microarchitecture cpu(String name) {
        String n = LLVM_NAMES.getOrDefault(name.toLowerCase(Locale.ROOT), name);
        try {
            return Microarchitecture.parse(n);
        } catch (IllegalArgumentException e) {
            List<String> known = new ArrayList<>();
            Microarchitecture.all().forEach(m -> known.add(m.llvmName()));
            throw new BadInputException("-mcpu=" + name + ": not a CPU Basalt models (" + String.join(", ",
                    known) + ", or llvm's names of the same cores)");
        }
    }

    private static int count(String option, String value, int min, int max) {
        try {
            int v = Integer.parseInt(value.strip());
            if (v < min || v > max) {
                throw new BadInputException("-" + option + "=" + value + ": must be in " + min + ".."
                        + max);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new BadInputException("-" + option + "=" + value + ": not a whole number");
        }
    }
}

package dev.basalt.cli;

import dev.basalt.simulator.bounds.Bounds;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One vocabulary: every name a command prints for a bound, stage, event, estimator or JSON field is a term of
 * docs/glossary.md, and no command's help or output uses a name the glossary rejects (its "Not" column). The
 * names are taken from the code and from real runs (a loop on Haswell through predict, simulate and explain),
 * not listed here by hand.
 */
class GlossaryTest {

    private static final Pattern TERM = Pattern.compile("^\\| `?([^|`]+?)`? \\|");

    /** The glossary's terms, and for each the names it rejects. */
    record Glossary(Set<String> terms, Map<String, String> rejected) {

        static Glossary read() throws IOException {
            Path page = ReadmeSnippetsTest.readme().resolveSibling("docs").resolve("glossary.md");
            Set<String> terms = new LinkedHashSet<>();
            Map<String, String> rejected = new LinkedHashMap<>();
            for (String line : Files.readAllLines(page)) {
                Matcher m = TERM.matcher(line);
                if (!m.find() || line.startsWith("| Term") || line.startsWith("|---")) {
                    continue;
                }
                String term = m.group(1).trim();
                terms.add(term.toLowerCase(Locale.ROOT));
                String[] cells = line.split("\\|");
                if (cells.length >= 4) {
                    String not = cells[3].trim();
                    for (String alias : not.split(",")) {
                        String a = alias.replaceAll("\\(for [^)]*\\)", "").replace("`", "").trim();
                        // an alias rejected only in one sense ("dispatched (for this event)") cannot be grepped for
                        if (!a.isEmpty() && !alias.contains("(for ")) {
                            rejected.put(a, term);
                        }
                    }
                }
            }
            return new Glossary(terms, rejected);
        }

        /** The rejected names {@code text} uses, each with the term to use instead. */
        List<String> offences(String text) {
            List<String> out = new ArrayList<>();
            rejected.forEach((alias, term) -> {
                // whole words; case-sensitive for abbreviations (LSD), else not
                boolean upper = alias.equals(alias.toUpperCase(Locale.ROOT));
                Pattern p = Pattern.compile("(?<![\\w-])" + Pattern.quote(alias) + "(?![\\w-])",
                        upper ? 0 : Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);
                Matcher m = p.matcher(text);
                if (m.find()) {
                    int from = Math.max(0, m.start() - 40);
                    out.add("'" + alias + "' (the glossary says " + term + "): …" + text.substring(from,
                            Math.min(text.length(), m.end() + 40)).replace('\n', ' ') + "…");
                }
            });
            return out;
        }
    }

    @Test
    void theGlossaryFixesANameForEveryBoundStageEventAndEstimator() throws IOException {
        Glossary g = Glossary.read();
        List<String> missing = new ArrayList<>();
        for (Bounds.Kind k : Bounds.Kind.values()) {
            check(g, k.name().toLowerCase(Locale.ROOT), missing);
        }
        for (dev.basalt.simulator.Simulator.UopSource s : dev.basalt.simulator.Simulator.UopSource.values()) {
            check(g, s.name().toLowerCase(Locale.ROOT), missing);
        }
        // the timeline's events, from its CSV header
        for (String column : SimulateViews.TIMELINE_CSV.split(",")) {
            if (!Set.of("hex", "mcpu", "iteration", "index", "instruction").contains(column)) {
                check(g, column, missing);
            }
        }
        for (String estimator : List.of("granite", "ithemal", "simulator", "bounds", "llvm-mca")) {
            check(g, estimator, missing);
        }
        // predict's JSON fields for a fallback (a loop GRANITE was not trained on) and the source's
        CliRun json = CliRun.of("predict", "--mcpu", "haswell", "--format", "json", "add rax, rbx\njnz -5");
        assertEquals(0, json.exit(), json.err());
        var row = new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out()).get(0);
        row.fieldNames().forEachRemaining(f -> {
            if (!Set.of("hex", "mcpu", "model").contains(f)) {
                check(g, f, missing);
            }
        });
        row.get("source").fieldNames().forEachRemaining(f -> {
            if (!f.equals("estimator") && !f.equals("reason")) {
                check(g, f, missing);
            }
        });
        assertTrue(missing.isEmpty(), "names the commands use that docs/glossary.md does not define: " + missing);
    }

    private static void check(Glossary g, String name, List<String> missing) {
        if (!g.terms().contains(name.toLowerCase(Locale.ROOT))) {
            missing.add(name);
        }
    }

    @Test
    void noHelpTextUsesANameTheGlossaryRejects() throws IOException {
        Glossary g = Glossary.read();
        assertTrue(g.rejected().containsKey("latency chain") && g.rejected().containsKey("uop"),
                "the glossary's Not column is read: " + g.rejected().keySet());
        List<String> offences = new ArrayList<>();
        walk(Basalt.commandLine(), offences, g);
        assertTrue(offences.isEmpty(), String.join("\n", offences));
    }

    private static void walk(CommandLine cl, List<String> offences, Glossary g) {
        String help = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
        // basalt mca speaks llvm-mca's words on purpose (the glossary says so)
        if (!cl.getCommandName().equals("mca")) {
            g.offences(help).forEach(o -> offences.add(cl.getCommandSpec().qualifiedName() + " --help: " + o));
        }
        cl.getSubcommands().values().forEach(sub -> walk(sub, offences, g));
    }

    @Test
    void predictSimulateAndExplainSpeakTheGlossarysWords() throws IOException {
        Glossary g = Glossary.read();
        // a loop the loop stream detector delivers on Haswell, with a chain, a load and a fallback
        String loop = "add rax, qword ptr [rdi]\nimul rax, rax\nadd rdi, 8\ndec rcx\njnz -16";
        List<String> offences = new ArrayList<>();
        for (String[] args : List.of(
                new String[] {"predict", "--mcpu", "haswell,znver5", loop},
                new String[] {"predict", "--mcpu", "haswell", "--model", "bounds", "--format", "json", loop},
                new String[] {"simulate", "--mcpu", "haswell,skylake", loop},
                new String[] {"simulate", "--mcpu", "haswell", "--view", "timeline", loop},
                new String[] {"simulate", "--mcpu", "haswell", "--view", "instructions", loop},
                new String[] {"explain", "--mcpu", "haswell", "--model", "simulator", loop})) {
            CliRun run = CliRun.of(args);
            assertEquals(0, run.exit(), String.join(" ", args) + ": " + run.err());
            g.offences(run.out() + run.err()).forEach(o -> offences.add(String.join(" ", args).replace('\n', ';')
                    + ": " + o));
        }
        assertTrue(offences.isEmpty(), String.join("\n", offences));
    }
}

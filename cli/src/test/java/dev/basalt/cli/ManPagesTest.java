package dev.basalt.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The manual pages, {@code docs/man/basalt-<command>.adoc} (AsciiDoc, one per command and subcommand, and
 * {@code basalt.adoc}), are generated from the commands' definitions by picocli's {@code ManPageGenerator}: this test
 * makes them and fails when a committed page differs, or is missing or left over (it writes the fresh pages to
 * {@code cli/target/man}; {@code -Dbasalt.regenerate=true} rewrites {@code docs/man}).
 */
class ManPagesTest {

    @Test
    void everyCommandsManualPageIsUpToDate() throws Exception {
        Map<String, String> pages = new TreeMap<>();
        collect(Basalt.commandLine(), pages);
        Path project = Path.of(System.getProperty("basalt.project.dir", ".."));
        Path committed = project.resolve("docs").resolve("man");
        Path fresh = project.resolve("cli").resolve("target").resolve("man");
        Files.createDirectories(fresh);
        if (Boolean.getBoolean("basalt.regenerate")) {
            Files.createDirectories(committed);
            try (var old = Files.list(committed)) {
                for (Path p : old.filter(p -> p.toString().endsWith(".adoc")).toList()) {
                    Files.delete(p);
                }
            }
        }
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, String> page : pages.entrySet()) {
            Files.writeString(fresh.resolve(page.getKey()), page.getValue());
            if (Boolean.getBoolean("basalt.regenerate")) {
                Files.writeString(committed.resolve(page.getKey()), page.getValue());
            }
            Path file = committed.resolve(page.getKey());
            if (!Files.exists(file) || !Files.readString(file).equals(page.getValue())) {
                stale.add(page.getKey());
            }
        }
        try (var listed = Files.list(committed)) {
            listed.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".adoc") && !pages.containsKey(n))
                    .forEach(n -> stale.add(n + " (no such command)"));
        }
        assertTrue(pages.containsKey("basalt-predict.adoc") && pages.containsKey("basalt-params-import.adoc"),
                pages.keySet().toString());
        assertEquals(List.of(), stale, "docs/man differs from the commands: the fresh pages are in " + fresh
                + "; copy them over docs/man, or run this test with -Dbasalt.regenerate=true");
    }

    /** The page of a command and of each of its subcommands, named by their qualified names. */
    private static void collect(CommandLine cl, Map<String, String> pages) {
        StringWriter text = new StringWriter();
        try (PrintWriter w = new PrintWriter(text)) {
            ManPageGenerator.writeSingleManPage(w, cl.getCommandSpec());
        }
        pages.put(cl.getCommandSpec().qualifiedName("-") + ".adoc", text.toString());
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (sub.getCommandSpec().parent() == cl.getCommandSpec() && !sub.getCommandName().equals("help")) {
                collect(sub, pages);
            }
        }
    }
}

package dev.basalt.cli;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every {@code ```java} block of the README and of the guide ({@code docs/guide/*.md}) compiles as it stands and
 * runs: a snippet is its imports, then either a class or statements, which this test puts in the {@code main} of a
 * class of its own (the statements are what a reader pastes into a method). And every {@code <dependency>} those
 * pages show names a module of this build and its version. Compiled with {@code javax.tools} against this module's
 * test class path, which holds every module a library user can depend on; run in this JVM, one after another, each
 * with its output captured. A snippet that names a missing import, uses a variable it does not define, or throws
 * fails here with its page and line.
 */
class ReadmeSnippetsTest {

    /** The project this module belongs to (the surefire configuration names its folder). */
    static Path project() {
        return Path.of(System.getProperty("basalt.project.dir", "..")).toAbsolutePath().normalize();
    }

    /** The README of the project. */
    static Path readme() {
        return project().resolve("README.md");
    }

    /** The pages whose Java snippets and dependency blocks are checked: the README, then the guide's pages. */
    static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(readme());
        Path guide = project().resolve("docs/guide");
        if (Files.isDirectory(guide)) {
            try (Stream<Path> s = Files.list(guide)) {
                s.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(out::add);
            }
        }
        return out;
    }

    /** How a page is named in test names and failures: its path in the project. */
    static String name(Path page) {
        Path p = page.toAbsolutePath().normalize();
        return p.startsWith(project()) ? project().relativize(p).toString() : p.toString();
    }

    /**
     * One {@code ```java} block: the page it is on, its text and the page line its first line is on.
     *
     * @param prefix what the class this test wraps its statements in starts with, from the page's file name
     *               ({@code Readme} for README.md, {@code Library} for library.md), so classes of two pages differ
     */
    record Snippet(String page, String prefix, int line, String text) {
        private static final Pattern TYPE = Pattern.compile(
                "^(?:public\\s+)?(?:final\\s+|abstract\\s+)?(?:class|record|interface|enum)\\s+(\\w+)", Pattern.MULTILINE);

        /** A snippet of the README. */
        Snippet(int line, String text) {
            this("README.md", "Readme", line, text);
        }

        /** Where it is, for messages: the page and line. */
        String where() {
            return page + " line " + line;
        }

        /** The class a snippet declares itself, or the one this test wraps its statements in. */
        String className() {
            Matcher m = TYPE.matcher(text);
            return m.find() ? m.group(1) : prefix + "SnippetAtLine" + line;
        }

        /** The compilation unit: the snippet itself when it declares a type, else its imports and a class around the rest. */
        String source() {
            if (TYPE.matcher(text).find())
                return text;
            List<String> lines = text.lines().toList();
            int body = 0;
            while (body < lines.size() && (lines.get(body).startsWith("import ") || lines.get(body).isBlank()))
                body++;
            // The wrapper adds exactly two lines above the body, so a diagnostic's line maps back to the page.
            String imports = body == 0 ? "" : String.join("\n", lines.subList(0, body)) + "\n";
            return imports + "public class " + className()
                    + " {\n    public static void main(String[] args) throws Exception {\n"
                    + String.join("\n", lines.subList(body, lines.size())) + "\n    }\n}\n";
        }

        /** The page line of a line of {@link #source()}. */
        int pageLine(long sourceLine) {
            boolean wrapped = !TYPE.matcher(text).find();
            long importLines = wrapped ? text.lines().takeWhile(l -> l.startsWith("import ") || l.isBlank()).count() : 0;
            long offset = wrapped && sourceLine > importLines ? sourceLine - 2 : sourceLine;
            return (int) (line + offset - 1);
        }
    }

    static List<Snippet> snippets(String markdown) {
        return snippets("README.md", markdown);
    }

    /** The class-name prefix of a page's snippets: its file name in camel case ({@code web-page.md}: WebPage). */
    static String prefix(String page) {
        String file = Path.of(page).getFileName().toString().replaceFirst("\\.md$", "");
        StringBuilder out = new StringBuilder();
        for (String part : file.split("[^A-Za-z0-9]+")) {
            if (!part.isEmpty())
                out.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1).toLowerCase(Locale.ROOT));
        }
        return out.length() == 0 || !Character.isLetter(out.charAt(0)) ? "Page" + out : out.toString();
    }

    /** The {@code ```java} blocks of {@code markdown}, the text of {@code page}. */
    static List<Snippet> snippets(String page, String markdown) {
        String prefix = prefix(page);
        List<Snippet> out = new ArrayList<>();
        List<String> lines = markdown.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```java"))
                continue;
            int start = i + 1;
            int end = start;
            while (end < lines.size() && !lines.get(end).strip().equals("```"))
                end++;
            if (end == lines.size())
                throw new IllegalArgumentException(page + " line " + (i + 1) + ": ```java block is never closed");
            out.add(new Snippet(page, prefix, start + 1, String.join("\n", lines.subList(start, end)) + "\n"));
            i = end;
        }
        return out;
    }

    @Test
    void theExtractorFindsBlocksAndWrapsStatementsKeepingLineNumbers() {
        List<Snippet> found = snippets("text\n```java\nimport java.util.List;\n\nList<String> s = List.of();\n```\n"
                + "```sh\nls\n```\n```java\nclass A {}\n```\n");
        assertEquals(2, found.size());
        assertEquals(3, found.get(0).line());
        assertEquals("ReadmeSnippetAtLine3", found.get(0).className());
        assertEquals("A", found.get(1).className());
        assertEquals("class A {}\n", found.get(1).source());
        List<String> wrapped = found.get(0).source().lines().toList();
        assertEquals("List<String> s = List.of();", wrapped.get(4));
        assertEquals(5, found.get(0).pageLine(5), "source line 5 is the statement on README line 5");
        assertEquals(3, found.get(0).pageLine(1), "the import stays on its line");
        List<Snippet> guide = snippets("docs/guide/web-page.md", "```java\nint x = 1;\n```\n");
        assertEquals("WebPageSnippetAtLine2", guide.get(0).className());
        assertEquals("docs/guide/web-page.md line 2", guide.get(0).where());
        assertEquals("Library", prefix("docs/guide/library.md"));
    }

    @TestFactory
    Stream<DynamicTest> everyJavaSnippetCompilesAndRuns(@TempDir Path classes) throws IOException {
        List<Snippet> all = new ArrayList<>();
        for (Path page : pages())
            all.addAll(snippets(name(page), Files.readString(page)));
        assertTrue(all.size() >= 1, "the README and the guide's library page have Java snippets; found " + all.size());
        return all.stream().map(s -> DynamicTest.dynamicTest(s.where(), () -> {
            Path out = Files.createDirectories(classes.resolve(s.prefix() + "-line" + s.line()));
            compile(s, out);
            run(s, out);
        }));
    }

    @Test
    void theDependencyBlocksNameThisBuildsModulesAndVersion() throws IOException {
        String version = System.getProperty("basalt.version");
        assertTrue(version != null, "the surefire configuration passes basalt.version");
        int dependencies = 0;
        for (Path page : pages()) {
            Matcher xml = Pattern.compile("(?s)```xml\n(.*?)```").matcher(Files.readString(page));
            while (xml.find()) {
                Matcher d = Pattern.compile("(?s)<dependency>(.*?)</dependency>").matcher(xml.group(1));
                while (d.find()) {
                    String block = d.group(1);
                    dependencies++;
                    assertTrue(block.contains("<groupId>dev.basalt</groupId>"), block);
                    assertTrue(block.contains("<version>" + version + "</version>"), name(page) + ": not this build's version, " + version
                            + ": " + block);
                    Matcher artifact = Pattern.compile("<artifactId>basalt-(\\w+)</artifactId>").matcher(block);
                    assertTrue(artifact.find(), block);
                    Path modulePom = project().resolve(artifact.group(1)).resolve("pom.xml");
                    assertTrue(Files.isRegularFile(modulePom) && Files.readString(modulePom)
                            .contains("<artifactId>basalt-" + artifact.group(1) + "</artifactId>"),
                            name(page) + ": no module publishes basalt-" + artifact.group(1));
                }
            }
        }
        assertTrue(dependencies > 0, "the README or the guide shows how to depend on Basalt (an ```xml <dependency> block)");
    }

    private static void compile(Snippet s, Path out) throws IOException {
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertTrue(javac != null, "no system Java compiler: the tests need a JDK, not a JRE");
        Path src = out.resolve(s.className() + ".java");
        Files.writeString(src, s.source());
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
            boolean ok = javac.getTask(null, files, diagnostics,
                    List.of("-proc:none", "-d", out.toString(), "-cp", System.getProperty("java.class.path"),
                            "--release", "17"),
                    null, files.getJavaFileObjects(src)).call();
            String errors = diagnostics.getDiagnostics().stream()
                    .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
                    .map(d -> s.page() + " line " + s.pageLine(d.getLineNumber()) + ": " + d.getMessage(Locale.ROOT))
                    .collect(Collectors.joining("\n"));
            if (!ok)
                fail("the snippet at " + s.where() + " does not compile:\n" + errors + "\n--- as compiled:\n"
                        + s.source());
        }
    }

    private static void run(Snippet s, Path out) throws Exception {
        PrintStream stdout = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {out.toUri().toURL()},
                ReadmeSnippetsTest.class.getClassLoader())) {
            Class<?> snippet = loader.loadClass(s.className());
            if (Stream.of(snippet.getMethods()).noneMatch(m -> m.getName().equals("main")))
                return;  // a class shown for its declaration: compiling it is the check
            Method main = snippet.getMethod("main", String[].class);
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            main.invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            throw new AssertionError("the snippet at " + s.where() + " throws", e.getCause());
        } finally {
            System.setOut(stdout);
        }
        stdout.println(s.where() + " prints:\n" + captured.toString(StandardCharsets.UTF_8).indent(2));
    }
}

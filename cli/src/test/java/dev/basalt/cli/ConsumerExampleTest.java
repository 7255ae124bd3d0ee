package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.granite.GraniteModel;
import dev.basalt.simulator.SimulatorEstimator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@code examples/consumer} — a Maven project that depends on {@code dev.basalt:basalt-granite} and
 * {@code basalt-simulator} as any user's would — builds with Maven against this build's artifacts, and its jar
 * prints the predictions this JVM makes for the same block.
 *
 * <p>What a user does with {@code mvn install} this test does without touching the user's Maven repository: it lays
 * out a repository in a temporary folder holding the Basalt modules on this test's class path (their jars, or
 * their {@code target/classes} jarred here when the build stopped before {@code package}) with their poms and the
 * parent pom, as {@code mvn install} would, and links every other group of the local repository into it, so the
 * nested build finds the plugins and third-party jars the outer one downloaded. The nested Maven is the one running
 * this build ({@code maven.home}, else {@code mvn} on the PATH; skipped with the reason when there is none), and it
 * runs offline: the example pins the plugin versions this build uses and depends on a subset of this module's
 * dependencies, so everything it needs is in the local repository by the time this test runs. About 15 s here.
 */
class ConsumerExampleTest {

    private static final Pattern PRINTED = Pattern.compile("(?m)^(granite|simulator) +([0-9.]+) cycles/iteration$");

    @Test
    void theConsumerExampleBuildsAgainstThisBuildAndPrintsItsPredictions(@TempDir Path tmp) throws Exception {
        Path maven = maven().orElse(null);
        assumeTrue(maven != null, "Maven is not available (no maven.home and no mvn on the PATH): examples/consumer not built");
        Path project = Path.of(System.getProperty("basalt.project.dir", "..")).toAbsolutePath().normalize();
        String version = System.getProperty("basalt.version");
        assertTrue(version != null, "the surefire configuration passes basalt.version");
        Path example = project.resolve("examples/consumer");
        String pom = Files.readString(example.resolve("pom.xml"));
        assertTrue(pom.contains("<basalt.version>" + version + "</basalt.version>"),
                "examples/consumer/pom.xml must depend on this build's version, " + version);
        // The nested build is offline: it can use only plugins this build has used, so the same versions.
        String parent = Files.readString(project.resolve("pom.xml"));
        for (String plugin : List.of("compiler", "surefire", "jar")) {
            Matcher v = Pattern.compile("<" + plugin + "\\.version>([^<]+)<").matcher(parent);
            assertTrue(v.find(), "the parent pom has no " + plugin + ".version");
            assertTrue(Pattern.compile("<artifactId>maven-" + plugin + "-plugin</artifactId>\\s*<version>"
                    + Pattern.quote(v.group(1)) + "</version>").matcher(pom).find(),
                    "examples/consumer/pom.xml must pin maven-" + plugin + "-plugin " + v.group(1) + ", as the build does");
        }

        Path repository = tmp.resolve("repository");
        Map<String, Path> installed = install(repository, project, version);
        assertTrue(installed.keySet().containsAll(List.of("basalt-decoder", "basalt-core", "basalt-datasets",
                "basalt-simulator", "basalt-training", "basalt-granite")), "modules found on the class path: " + installed);
        linkLocalRepository(repository, localRepository());

        Path consumer = tmp.resolve("consumer");
        copyTree(example, consumer);
        List<String> build = List.of(maven.toString(), "-B", "-q", "-o", "-Dmaven.repo.local=" + repository, "package");
        long start = System.nanoTime();
        Output built = run(consumer, build);
        assertEquals(0, built.exit(), "mvn package in examples/consumer failed:\n" + built.text());
        Path jar = consumer.resolve("target/basalt-consumer-1.0.jar");
        assertTrue(Files.isRegularFile(jar), "mvn package made no " + jar);

        String hex = "488b074801c8488907";
        Output ran = run(consumer, List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar",
                jar.toString(), hex));
        System.out.printf("examples/consumer built and ran in %.1f s:%n%s", (System.nanoTime() - start) / 1e9,
                ran.text().indent(2));
        assertEquals(0, ran.exit(), ran.text());
        Map<String, Double> printed = new TreeMap<>();
        Matcher m = PRINTED.matcher(ran.text());
        while (m.find())
            printed.put(m.group(1), Double.parseDouble(m.group(2)));
        assertEquals(List.of("granite", "simulator"), List.copyOf(printed.keySet()), ran.text());

        BasicBlock block = BasicBlock.fromHex(hex);
        double simulated = SimulatorEstimator.standard().predict(block, Microarchitecture.HASWELL).cyclesPerIteration();
        double learned;
        try (GraniteModel granite = GraniteModel.bundled()) {
            learned = granite.predict(block, Microarchitecture.HASWELL).cyclesPerIteration();
        }
        // Printed with four decimals.
        assertEquals(simulated, printed.get("simulator"), 6e-5, ran.text());
        assertEquals(learned, printed.get("granite"), 6e-5, ran.text());
        assertTrue(Math.abs(learned - simulated) > 1e-4, "GRANITE corrects the simulator; the same number twice means "
                + "one estimator printed for both: " + ran.text());
    }

    /** The Maven running this build, else {@code mvn} on the PATH. */
    private static Optional<Path> maven() {
        String home = System.getProperty("basalt.maven.home", "");
        if (!home.isBlank() && Files.isExecutable(Path.of(home, "bin", "mvn")))
            return Optional.of(Path.of(home, "bin", "mvn"));
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .filter(dir -> !dir.isBlank())
                .map(dir -> Path.of(dir, "mvn"))
                .filter(Files::isExecutable)
                .findFirst();
    }

    private static Path localRepository() {
        String configured = System.getProperty("basalt.maven.repo", "");
        return configured.isBlank() ? Path.of(System.getProperty("user.home"), ".m2", "repository") : Path.of(configured);
    }

    /**
     * Lays out the Basalt modules on the class path, and the parent pom, as {@code mvn install} would in
     * {@code repository}; returns the artifact ids laid out with their jars.
     */
    private static Map<String, Path> install(Path repository, Path project, String version) throws IOException {
        Map<String, Path> installed = new TreeMap<>();
        put(repository, "basalt-parent", version, project.resolve("pom.xml"), null);
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path path = Path.of(entry).toAbsolutePath().normalize();
            if (!path.startsWith(project) || path.getParent() == null || !path.getParent().endsWith("target"))
                continue;
            Path module = path.getParent().getParent();
            String artifact = "basalt-" + module.getFileName();
            boolean classes = path.getFileName().toString().equals("classes") && Files.isDirectory(path);
            boolean jar = path.getFileName().toString().equals(artifact + "-" + version + ".jar");
            if (!classes && !jar)
                continue;  // test classes, test jars
            Path modulePom = module.resolve("pom.xml");
            assertTrue(Files.readString(modulePom).contains("<artifactId>" + artifact + "</artifactId>"),
                    modulePom + " is not " + artifact);
            Path jarFile = jar ? path : jarUp(path, Files.createTempFile(repository.getParent(), artifact, ".jar"));
            installed.put(artifact, put(repository, artifact, version, modulePom, jarFile));
        }
        return installed;
    }

    private static Path put(Path repository, String artifact, String version, Path pom, Path jar) throws IOException {
        Path dir = Files.createDirectories(repository.resolve(Path.of("dev", "basalt", artifact, version)));
        Files.copy(pom, dir.resolve(artifact + "-" + version + ".pom"));
        if (jar != null)
            Files.copy(jar, dir.resolve(artifact + "-" + version + ".jar"));
        return dir;
    }

    private static Path jarUp(Path classes, Path jar) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
        return jar;
    }

    /**
     * Links every group of the local repository into {@code repository} but {@code dev.basalt}, whose artifacts are
     * this build's: an installed older Basalt must not stand in for them.
     */
    private static void linkLocalRepository(Path repository, Path local) throws IOException {
        if (!Files.isDirectory(local))
            return;
        try (Stream<Path> top = Files.list(local)) {
            for (Path group : (Iterable<Path>) top::iterator) {
                Path link = repository.resolve(group.getFileName().toString());
                if (!group.getFileName().toString().equals("dev")) {
                    Files.createSymbolicLink(link, group);
                    continue;
                }
                try (Stream<Path> dev = Files.list(group)) {
                    for (Path sub : (Iterable<Path>) dev::iterator)
                        if (!sub.getFileName().toString().equals("basalt"))
                            Files.createSymbolicLink(link.resolve(sub.getFileName().toString()), sub);
                }
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path relative = from.relativize(f);
                if (relative.startsWith("target"))
                    continue;  // a build a reader ran in the example itself
                Path target = to.resolve(relative.toString());
                if (Files.isDirectory(f))
                    Files.createDirectories(target);
                else
                    Files.copy(f, target);
            }
        }
    }

    private record Output(int exit, String text) {}

    private static Output run(Path dir, List<String> command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir.getParent(), "out", ".txt");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail(String.join(" ", command) + " took over 300 s:\n" + Files.readString(log));
        }
        return new Output(p.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }
}

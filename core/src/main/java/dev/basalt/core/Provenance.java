package dev.basalt.core;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * How an artifact (a trained model, a simulator table) was made, written in the same file as the artifact and
 * readable after loading: what a reader needs to trust it, rebuild it, or notice that what it rests on changed.
 *
 * @param kind            what the artifact is ({@code granite-model}, {@code simulator-table}, ...)
 * @param created         when it was written (ISO-8601 instant)
 * @param basaltVersion   the Basalt version that wrote it
 * @param gitCommit       the git commit of that build ({@code -dirty} appended for a changed work tree), or
 *                        {@code unknown}
 * @param command         the command line that made it
 * @param jvm             Java version, OS and architecture
 * @param dataFingerprint SHA-256 of the data it was made from (the data set's fingerprint), or null
 * @param split           how the data was split, or null
 * @param seed            the random seed, or null when nothing was random
 * @param prior           the estimator it rests on (a learned model's analytical prior), or null
 * @param details         everything else the maker recorded (counts, times, reports), in insertion order
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Provenance(String kind, String created, String basaltVersion, String gitCommit, String command,
                         String jvm, String dataFingerprint, String split, Long seed, Prior prior,
                         @JsonIgnore Map<String, Object> details) {

    /**
     * The estimator an artifact rests on, by name and by content.
     *
     * @param name        its name ({@code simulator})
     * @param fingerprint SHA-256 of its content (for the simulator: its tables and options) when the artifact
     *                    was made
     */
    public record Prior(String name, String fingerprint) {
        public Prior {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(fingerprint, "fingerprint");
        }
    }

    public Provenance {
        details = details == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /**
     * A provenance for an artifact made now by this build and JVM.
     *
     * @param kind    what the artifact is
     * @param command the command line that makes it
     */
    public static Provenance now(String kind, String command) {
        return new Provenance(kind, Instant.now().toString(), Build.VERSION, Build.COMMIT, command,
                System.getProperty("java.version") + " " + System.getProperty("os.name") + " "
                        + System.getProperty("os.arch"), null, null, null, null, Map.of());
    }

    /** The same provenance with the data it was made from. */
    public Provenance withData(String fingerprint, String split) {
        return new Provenance(kind, created, basaltVersion, gitCommit, command, jvm, fingerprint, split, seed, prior,
                details);
    }

    /** The same provenance with a seed. */
    public Provenance withSeed(long seed) {
        return new Provenance(kind, created, basaltVersion, gitCommit, command, jvm, dataFingerprint, split, seed,
                prior, details);
    }

    /** The same provenance with a prior (which replaces a prior recorded by name only, as a detail). */
    public Provenance withPrior(Prior prior) {
        Map<String, Object> d = new LinkedHashMap<>(details);
        d.remove("prior");
        return new Provenance(kind, created, basaltVersion, gitCommit, command, jvm, dataFingerprint, split, seed,
                prior, d);
    }

    /** The same provenance with one more detail (replacing one of the same key). */
    public Provenance with(String key, Object value) {
        Map<String, Object> d = new LinkedHashMap<>(details);
        d.put(key, value);
        return new Provenance(kind, created, basaltVersion, gitCommit, command, jvm, dataFingerprint, split, seed,
                prior, d);
    }

    /** A detail, if recorded. */
    public Optional<Object> detail(String key) {
        return Optional.ofNullable(details.get(key));
    }

    /** Details are written as top-level fields beside the typed ones (so older files read back unchanged). */
    @JsonAnyGetter
    Map<String, Object> anyDetails() {
        return details;
    }

    /**
     * A provenance from fields as they are written in JSON: the typed ones by their names, every other field a
     * detail (so an older untyped map reads as far as it goes). Also the JSON creator.
     */
    @com.fasterxml.jackson.annotation.JsonCreator(mode = com.fasterxml.jackson.annotation.JsonCreator.Mode.DELEGATING)
    public static Provenance of(Map<String, Object> fields) {
        Map<String, Object> rest = new LinkedHashMap<>(fields);
        Object prior = rest.remove("prior");
        Object seed = rest.remove("seed");
        Prior p = null;
        if (prior instanceof Map<?, ?> m && m.get("name") != null && m.get("fingerprint") != null) {
            p = new Prior(m.get("name").toString(), m.get("fingerprint").toString());
        } else if (prior != null) {
            rest.put("prior", prior); // an older file named its prior by name only: keep it as a detail
        }
        return new Provenance(string(rest.remove("kind")), string(rest.remove("created")),
                string(rest.remove("basaltVersion")), string(rest.remove("gitCommit")), string(rest.remove("command")),
                string(rest.remove("jvm")), string(rest.remove("dataFingerprint")), string(rest.remove("split")),
                seed instanceof Number n ? n.longValue() : null, p, rest);
    }

    private static String string(Object o) {
        return o == null ? null : o.toString();
    }

    /** This build's version and commit, from {@code build.properties} written by the build. */
    private static final class Build {
        static final String VERSION;
        static final String COMMIT;

        static {
            Properties p = new Properties();
            try (InputStream in = Provenance.class.getResourceAsStream("build.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read build.properties", e);
            }
            VERSION = value(p, "version", "development build");
            String commit = value(p, "git.commit.id", "unknown");
            COMMIT = "true".equals(p.getProperty("git.dirty")) ? commit + "-dirty" : commit;
        }

        private static String value(Properties p, String key, String absent) {
            String v = p.getProperty(key);
            return v == null || v.isBlank() || v.startsWith("${") ? absent : v;
        }
    }
}

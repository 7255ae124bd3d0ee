package dev.basalt.datasets;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.basalt.core.AtomicFiles;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Token ids for the learned models (immutable): {@link Tokens#UNKNOWN} is id 0 and stands for every token not in the
 * vocabulary; reserved tokens follow in their given order; then the tokens seen at least {@code minCount}
 * times, most frequent first (ties by token text, so the same data always gives the same ids).
 *
 * <p>A class rather than a record so that it can keep its token-to-id index.
 */
public final class Vocabulary {

    private final List<String> tokens;
    private final List<Long> counts;
    private final Map<String, Integer> index;

    /**
     * @param tokens tokens by id
     * @param counts occurrences of each token in the data it was built from (0 for reserved tokens not seen)
     */
    @JsonCreator
    public Vocabulary(@JsonProperty("tokens") List<String> tokens, @JsonProperty("counts") List<Long> counts) {
        tokens = List.copyOf(tokens);
        counts = List.copyOf(counts);
        if (tokens.isEmpty() || !tokens.get(0).equals(Tokens.UNKNOWN)) {
            throw new IllegalArgumentException("token 0 must be " + Tokens.UNKNOWN);
        }
        if (tokens.size() != counts.size()) {
            throw new IllegalArgumentException(tokens.size() + " tokens but " + counts.size() + " counts");
        }
        Map<String, Integer> idx = new HashMap<>(tokens.size() * 2);
        for (int i = 0; i < tokens.size(); i++) {
            if (idx.put(tokens.get(i), i) != null) {
                throw new IllegalArgumentException("duplicate token in vocabulary: " + tokens.get(i));
            }
        }
        this.tokens = tokens;
        this.counts = counts;
        this.index = Map.copyOf(idx);
    }

    /** Tokens by id. */
    @JsonProperty("tokens")
    public List<String> tokens() {
        return tokens;
    }

    /** Occurrence counts by id. */
    @JsonProperty("counts")
    public List<Long> counts() {
        return counts;
    }

    /** Builds a vocabulary from token occurrences. */
    public static Vocabulary build(Iterable<String> occurrences, List<String> reserved, int minCount) {
        if (minCount < 1) {
            throw new IllegalArgumentException("minCount must be >= 1, got " + minCount);
        }
        Map<String, Long> seen = new HashMap<>();
        long unknownSeen = 0;
        for (String t : occurrences) {
            Objects.requireNonNull(t, "token");
            if (t.equals(Tokens.UNKNOWN)) {
                unknownSeen++;
            } else {
                seen.merge(t, 1L, Long::sum);
            }
        }
        Map<String, Long> ordered = new LinkedHashMap<>();
        ordered.put(Tokens.UNKNOWN, unknownSeen);
        for (String r : reserved) {
            ordered.putIfAbsent(r, seen.getOrDefault(r, 0L));
        }
        seen.entrySet().stream().filter(e -> e.getValue() >= minCount && !ordered.containsKey(e.getKey()))
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder())
                        .thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> ordered.put(e.getKey(), e.getValue()));
        return new Vocabulary(new ArrayList<>(ordered.keySet()), new ArrayList<>(ordered.values()));
    }

    /** Number of tokens, including {@link Tokens#UNKNOWN}. */
    public int size() {
        return tokens.size();
    }

    /** The id of {@code token}, or 0 ({@link Tokens#UNKNOWN}) if it is not in the vocabulary. */
    public int id(String token) {
        Integer id = index.get(token);
        return id == null ? 0 : id;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Vocabulary v && tokens.equals(v.tokens) && counts.equals(v.counts);
    }

    @Override
    public int hashCode() {
        return tokens.hashCode() * 31 + counts.hashCode();
    }

    /** Writes the vocabulary as JSON, atomically. */
    public void write(Path file) throws IOException {
        byte[] json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsBytes(this);
        AtomicFiles.write(file, out -> out.write(json));
    }

    /** Reads a vocabulary written by {@link #write}. */
    public static Vocabulary read(Path file) throws IOException {
        return new ObjectMapper().readValue(file.toFile(), Vocabulary.class);
    }
}

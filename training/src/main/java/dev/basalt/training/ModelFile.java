package dev.basalt.training;

import ai.djl.ndarray.NDArray;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.core.AtomicFiles;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Provenance;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import java.util.zip.ZipOutputStream;

/**
 * The checkpoint format both learned models use: one zip file with {@code model.json} (format, configuration,
 * CPUs, vocabulary, provenance — the model's business) and {@code weights.bin} (every parameter: name, shape,
 * float32 values, in the model's fixed order). Written atomically; read with errors that name the file.
 */
public final class ModelFile {

    private ModelFile() {
    }

    /** The two parts of a model file. */
    public record Contents(byte[] json, byte[] weights) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * What a model file says about its model.
     *
     * @param config     the model's configuration record
     * @param cpus       the CPUs of its heads, in head order
     * @param vocabulary its vocabulary
     * @param provenance how the model was made (empty, with no fields, when the file records nothing)
     * @param weights    the parameter data, for {@link #readWeights}
     * @param calibration the model's prediction intervals, or null for a file without
     */
    public record Loaded<C, V>(C config, List<Microarchitecture> cpus, V vocabulary, Provenance provenance,
                               byte[] weights, Calibration calibration) {
        public Loaded {
            Objects.requireNonNull(provenance, "provenance");
        }
    }

    /**
     * Writes a model: {@code model.json} holds the format, configuration, CPUs, vocabulary, provenance and, when
     * there is one, the calibration (Jackson-serialised), {@code weights.bin} the parameters.
     */
    public static void write(Path file, String format, Object config, List<Microarchitecture> cpus, Object vocabulary,
                             Provenance provenance, Calibration calibration, Map<String, NDArray> params)
            throws IOException {
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put("format", format);
        meta.put("config", config);
        meta.put("cpus", cpus.stream().map(Microarchitecture::llvmName).toList());
        meta.put("vocabulary", vocabulary);
        meta.put("provenance", provenance);
        if (calibration != null) {
            meta.put("calibration", calibration);
        }
        write(file, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(meta), params);
    }

    /**
     * Reads a model file written by {@link #write(Path, String, Object, List, Object, Provenance, Calibration,
     * Map)}. The
     * provenance of an older file (an untyped map) reads as far as {@link Provenance} can type it; its other
     * fields become details.
     *
     * @throws IOException naming the file when it is not a model of this kind and format or its metadata is
     *                     unusable
     */
    public static <C, V> Loaded<C, V> read(byte[] bytes, String name, String kind, String format,
                                           Class<C> configType, Class<V> vocabularyType) throws IOException {
        Contents contents = read(bytes, name, kind);
        try {
            JsonNode meta = JSON.readTree(contents.json());
            if (!format.equals(meta.path("format").asText())) {
                throw new IOException("format '" + meta.path("format").asText() + "', expected " + format);
            }
            C config = JSON.treeToValue(meta.get("config"), configType);
            V vocabulary = JSON.treeToValue(meta.get("vocabulary"), vocabularyType);
            List<Microarchitecture> cpus = new ArrayList<>();
            meta.path("cpus").forEach(n -> cpus.add(Microarchitecture.parse(n.asText())));
            if (config == null || vocabulary == null || cpus.isEmpty()) {
                throw new IOException("configuration, vocabulary or CPUs missing");
            }
            JsonNode made = meta.path("provenance");
            Provenance provenance = JSON.treeToValue(made.isObject() ? made : JSON.createObjectNode(),
                    Provenance.class);
            JsonNode calibrated = meta.get("calibration");
            Calibration calibration = calibrated == null || calibrated.isNull() ? null
                    : JSON.treeToValue(calibrated, Calibration.class);
            if (calibration != null && calibration.heads().size() != cpus.size()) {
                throw new IOException("calibration has " + calibration.heads().size() + " heads, the model "
                        + cpus.size());
            }
            return new Loaded<>(config, List.copyOf(cpus), vocabulary, provenance, contents.weights(), calibration);
        } catch (IOException | RuntimeException e) {
            throw new IOException(name + " has unusable model metadata: " + e.getMessage(), e);
        }
    }

    /** Writes {@code json} and the parameters to {@code file}, atomically (a crash leaves the old file). */
    public static void write(Path file, byte[] json, Map<String, NDArray> params) throws IOException {
        AtomicFiles.write(file, out -> {
            try (ZipOutputStream zip = new ZipOutputStream(out)) {
                zip.putNextEntry(new ZipEntry("model.json"));
                zip.write(json);
                zip.closeEntry();
                zip.putNextEntry(new ZipEntry("weights.bin"));
                DataOutputStream data = new DataOutputStream(zip);
                data.writeInt(params.size());
                for (Map.Entry<String, NDArray> p : params.entrySet()) {
                    data.writeUTF(p.getKey());
                    long[] shape = p.getValue().getShape().getShape();
                    data.writeInt(shape.length);
                    for (long d : shape) {
                        data.writeLong(d);
                    }
                    for (float f : p.getValue().toFloatArray()) {
                        data.writeFloat(f);
                    }
                }
                data.flush();
                zip.closeEntry();
            }
        });
    }

    /**
     * The {@code format} a model file names ({@code basalt-granite-1}, ...), or empty when {@code file} is not a
     * model file at all (not a zip of {@code model.json} and {@code weights.bin}).
     */
    public static java.util.Optional<String> formatOf(java.nio.file.Path file) throws IOException {
        byte[] bytes = java.nio.file.Files.readAllBytes(file);
        if (bytes.length < 4 || bytes[0] != 'P' || bytes[1] != 'K' || bytes[2] != 3 || bytes[3] != 4) {
            return java.util.Optional.empty(); // not a zip: no model file of any kind
        }
        Contents contents = read(bytes, file.toString(), "Basalt"); // a zip cut short or without the parts says so
        try {
            return java.util.Optional.of(JSON.readTree(contents.json()).path("format").asText());
        } catch (IOException e) {
            throw new IOException(file + " has unreadable model metadata: " + e.getMessage(), e);
        }
    }

    /**
     * Splits the bytes of a model file into its parts.
     *
     * @param name names the file in errors
     * @param kind the model kind for messages ("GRANITE", "Ithemal")
     */
    public static Contents read(byte[] bytes, String name, String kind) throws IOException {
        // A zip ends with its central directory; ZipInputStream never looks there, so a file cut short after
        // the last entry would otherwise load as if whole.
        if (!hasEndOfCentralDirectory(bytes)) {
            throw new IOException(name + " is not a complete " + kind + " model file (no zip end record: the file "
                    + "is truncated or not a model)");
        }
        byte[] json = null;
        byte[] weights = null;
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(bytes))) {
            for (ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                if (e.getName().equals("model.json")) {
                    json = bounded(zip, name, "model.json");
                } else if (e.getName().equals("weights.bin")) {
                    weights = bounded(zip, name, "weights.bin");
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException(name + " is not a readable " + kind + " model: " + e.getMessage(), e);
        }
        if (json == null || weights == null) {
            throw new IOException(name + " is not a " + kind + " model (model.json or weights.bin missing)");
        }
        return new Contents(json, weights);
    }

    /** Largest entry a model file may hold once inflated: a zip bomb must not exhaust memory. */
    static final int MAX_ENTRY_BYTES = 512 << 20;

    /** The entry's bytes, refusing one that inflates past {@link #MAX_ENTRY_BYTES}. */
    private static byte[] bounded(ZipInputStream zip, String name, String entry) throws IOException {
        byte[] bytes = zip.readNBytes(MAX_ENTRY_BYTES + 1);
        if (bytes.length > MAX_ENTRY_BYTES) {
            throw new IOException(name + ": " + entry + " inflates past " + (MAX_ENTRY_BYTES >> 20) + " MB: not a "
                    + "model file Basalt wrote");
        }
        return bytes;
    }

    private static boolean hasEndOfCentralDirectory(byte[] b) {
        // The end record is 22 bytes plus a comment of at most 65,535 bytes; signature PK\5\6.
        for (int i = b.length - 22; i >= 0 && i >= b.length - 22 - 65_535; i--) {
            if (b[i] == 'P' && b[i + 1] == 'K' && b[i + 2] == 5 && b[i + 3] == 6) {
                int commentLength = (b[i + 20] & 0xff) | (b[i + 21] & 0xff) << 8;
                if (i + 22 + commentLength == b.length) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Fills {@code params} (already shaped by the model's configuration) from {@code weights}.
     *
     * @throws IOException naming the file when a parameter is missing, extra, of the wrong shape, or the data
     *                     ends early (a truncated file)
     */
    public static void readWeights(byte[] weights, Map<String, NDArray> params, String name) throws IOException {
        try (DataInputStream data = new DataInputStream(new ByteArrayInputStream(weights))) {
            int count = data.readInt();
            if (count != params.size()) {
                throw new IOException("has " + count + " parameters, the configuration needs " + params.size());
            }
            for (int k = 0; k < count; k++) {
                String param = data.readUTF();
                NDArray target = params.get(param);
                int rank = data.readInt();
                if (rank < 0 || rank > 8) {
                    throw new IOException("parameter " + param + " has rank " + rank);
                }
                long[] shape = new long[rank];
                for (int d = 0; d < rank; d++) {
                    shape[d] = data.readLong();
                }
                if (target == null || !Arrays.equals(shape, target.getShape().getShape())) {
                    throw new IOException("parameter " + param + " " + Arrays.toString(shape)
                            + " does not fit the configuration");
                }
                float[] v = new float[(int) target.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = data.readFloat();
                }
                Rows.assign(target, v);
            }
        } catch (IOException e) {
            throw new IOException(name + ": " + e.getMessage()
                    + (e instanceof EOFException ? " (the file is truncated)" : ""), e);
        }
    }
}

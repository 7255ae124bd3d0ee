package dev.basalt.granite;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import dev.basalt.core.Djl;
import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.core.training.MultiTaskTrainer;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Vocabulary;
import dev.basalt.decoder.BasicBlock;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * A GRANITE model: the network, its vocabulary, configuration and the CPUs its heads predict. Predictions
 * are serialised (one forward pass at a time), which makes the model safe to share between threads.
 */
public final class GraniteModel implements ThroughputEstimator, AutoCloseable {

    private final GraniteConfig config;
    private final Vocabulary vocabulary;
    private final List<Microarchitecture> cpus;
    private final NDManager manager;
    private final GraniteNetwork network;
    /** The analytical estimator whose prediction the network corrects, or null. */
    private final ThroughputEstimator prior;

    private GraniteModel(GraniteConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        this.config = config;
        this.vocabulary = vocabulary;
        this.cpus = List.copyOf(cpus);
        this.prior = config.hasPrior() ? Estimators.load(config.prior()) : null;
        if (prior != null && !prior.supported().containsAll(cpus)) {
            throw new IllegalArgumentException("prior estimator " + config.prior() + " supports " + prior.supported()
                    + ", not every CPU of " + cpus);
        }
        this.manager = Djl.engine().newBaseManager();
        this.network = new GraniteNetwork(manager, config, vocabulary.size(), cpus.size());
    }

    /** A freshly initialised model (weights from {@code config.seed()}). */
    public static GraniteModel create(GraniteConfig config, Vocabulary vocabulary, List<Microarchitecture> cpus) {
        return new GraniteModel(config, vocabulary, cpus);
    }

    /** The vocabulary of the node tokens of these blocks' graphs, with the structural tokens reserved. */
    public static Vocabulary vocabulary(List<BasicBlock> blocks, GraniteConfig config) {
        List<String> tokens = new ArrayList<>();
        for (BasicBlock b : blocks) {
            GraniteGraph.of(b, config.memoryPolicy()).nodes().forEach(n -> tokens.add(n.token()));
        }
        return Vocabulary.build(tokens, dev.basalt.datasets.Tokens.STRUCTURAL, 1);
    }

    public GraniteConfig config() {
        return config;
    }

    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /**
     * Trains on {@code train}, stopping early on {@code validation}'s MAPE.
     *
     * @return one record per epoch run
     */
    public List<MultiTaskTrainer.Epoch> train(List<LabelledBlock> train, List<LabelledBlock> validation,
                                              Consumer<MultiTaskTrainer.Epoch> onEpoch, IntConsumer onBatch) {
        List<LabelledBlock> all = new ArrayList<>(train);
        all.addAll(validation);
        List<GraniteGraph> graphs = all.stream().map(b -> GraniteGraph.of(b.block(), config.memoryPolicy())).toList();
        float[][] priors = priors(all.stream().map(LabelledBlock::block).toList());
        double[][] labels = new double[all.size()][cpus.size()];
        int[] sizes = new int[all.size()];
        for (int i = 0; i < all.size(); i++) {
            for (int c = 0; c < cpus.size(); c++) {
                labels[i][c] = all.get(i).throughput(cpus.get(c)).orElse(Double.NaN);
            }
            sizes[i] = all.get(i).block().size();
        }
        List<Integer> trainIdx = new ArrayList<>();
        List<Integer> validationIdx = new ArrayList<>();
        for (int i = 0; i < all.size(); i++) {
            (i < train.size() ? trainIdx : validationIdx).add(i);
        }
        MultiTaskTrainer.Model<GraniteBatch> model = new MultiTaskTrainer.Model<>() {
            @Override
            public Map<String, NDArray> parameters() {
                return network.params;
            }

            @Override
            public GraniteBatch batch(List<Integer> examples) {
                return new GraniteBatch(examples.stream().map(graphs::get).toList(), vocabulary,
                        priors == null ? null : rows(priors, examples));
            }

            @Override
            public NDArray predict(GraniteBatch batch, NDManager m) {
                return network.forward(batch, m).get(1);
            }
        };
        MultiTaskTrainer<GraniteBatch> trainer = new MultiTaskTrainer<>(Djl.engine(),
                new MultiTaskTrainer.Settings(config.learningRate(), config.clipNorm(), config.epochs(),
                        config.patience(), config.batchInstructions(), config.seed(), config.lrDecay(),
                        config.lrPatience()));
        synchronized (this) {
            return trainer.train(model, labels, sizes, trainIdx, validationIdx, onEpoch, onBatch);
        }
    }

    /** The prior's cycles per iteration per block and head, or null without a prior. */
    private float[][] priors(List<BasicBlock> blocks) {
        if (prior == null) {
            return null;
        }
        float[][] out = new float[blocks.size()][cpus.size()];
        for (int c = 0; c < cpus.size(); c++) {
            List<Prediction> p = prior.predictAll(blocks, cpus.get(c));
            for (int i = 0; i < blocks.size(); i++) {
                out[i][c] = (float) p.get(i).cyclesPerIteration();
            }
        }
        return out;
    }

    private static float[] rows(float[][] table, List<Integer> examples) {
        int heads = table.length == 0 ? 0 : table[0].length;
        float[] out = new float[examples.size() * heads];
        for (int i = 0; i < examples.size(); i++) {
            System.arraycopy(table[examples.get(i)], 0, out, i * heads, heads);
        }
        return out;
    }

    @Override
    public String name() {
        return "granite";
    }

    @Override
    public Set<Microarchitecture> supported() {
        return EnumSet.copyOf(cpus);
    }

    @Override
    public Prediction predict(BasicBlock block, Microarchitecture uarch) {
        return predictAll(List.of(block), uarch).get(0);
    }

    @Override
    public synchronized List<Prediction> predictAll(List<BasicBlock> blocks, Microarchitecture uarch) {
        checkSupported(uarch);
        int head = cpus.indexOf(uarch);
        List<GraniteGraph> graphs = blocks.stream().map(b -> GraniteGraph.of(b, config.memoryPolicy())).toList();
        float[][] p = priors(blocks);
        GraniteBatch batch = new GraniteBatch(graphs, vocabulary,
                p == null ? null : rows(p, java.util.stream.IntStream.range(0, blocks.size()).boxed().toList()));
        unknownTokens.addAndGet(batch.unknownTokens);
        try (NDManager m = manager.newSubManager()) {
            NDList out = network.forward(batch, m);
            float[] contributions = out.get(0).toFloatArray();
            float[] totals = out.get(1).toFloatArray();
            List<Prediction> predictions = new ArrayList<>();
            int instruction = 0;
            for (int g = 0; g < blocks.size(); g++) {
                List<Double> parts = new ArrayList<>();
                for (int k = 0; k < blocks.get(g).size(); k++) {
                    parts.add((double) contributions[(instruction++) * cpus.size() + head]);
                }
                // A sum of contributions can be slightly negative for an untrained network; clamp to zero.
                predictions.add(new Prediction(Math.max(0, totals[g * cpus.size() + head]), parts,
                        p == null ? 0 : p[g][head]));
            }
            return predictions;
        }
    }

    /**
     * Saves the model as one zip file, atomically: {@code model.json} (format, configuration, CPUs, vocabulary
     * and the given provenance) and {@code weights.bin} (every parameter: name, shape, float32 values).
     */
    public synchronized void save(java.nio.file.Path file, Map<String, Object> provenance) throws java.io.IOException {
        Map<String, Object> meta = new java.util.LinkedHashMap<>();
        meta.put("format", FORMAT);
        meta.put("config", config);
        meta.put("cpus", cpus.stream().map(Microarchitecture::llvmName).toList());
        meta.put("vocabulary", vocabulary);
        meta.put("provenance", provenance);
        byte[] json = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(meta);
        dev.basalt.core.AtomicFiles.write(file, out -> {
            try (java.util.zip.ZipOutputStream zip = new java.util.zip.ZipOutputStream(out)) {
                zip.putNextEntry(new java.util.zip.ZipEntry("model.json"));
                zip.write(json);
                zip.closeEntry();
                zip.putNextEntry(new java.util.zip.ZipEntry("weights.bin"));
                java.io.DataOutputStream data = new java.io.DataOutputStream(zip);
                data.writeInt(network.params.size());
                for (Map.Entry<String, NDArray> p : network.params.entrySet()) {
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
     * Loads a model written by {@link #save}.
     *
     * @throws java.io.IOException naming the file and what is wrong with it (not a model, truncated, a
     *                             parameter missing or of the wrong shape)
     */
    public static GraniteModel load(java.nio.file.Path file) throws java.io.IOException {
        return load(java.nio.file.Files.readAllBytes(file), file.toString());
    }

    /** The model shipped with Basalt ({@code granite-default.granite} beside this class). */
    public static GraniteModel bundled() throws java.io.IOException {
        try (java.io.InputStream in = GraniteModel.class.getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new java.io.IOException("no bundled GRANITE model (" + BUNDLED + ") in this build");
            }
            return load(in.readAllBytes(), "bundled " + BUNDLED);
        }
    }

    private static final String BUNDLED = "granite-default.granite";

    /** Loads a model from the bytes of a model file; {@code file} names it in errors. */
    static GraniteModel load(byte[] bytes, String file) throws java.io.IOException {
        byte[] json = null;
        byte[] weights = null;
        try (java.util.zip.ZipInputStream zip = new java.util.zip.ZipInputStream(new java.io.ByteArrayInputStream(bytes))) {
            for (java.util.zip.ZipEntry e; (e = zip.getNextEntry()) != null; ) {
                if (e.getName().equals("model.json")) {
                    json = zip.readAllBytes();
                } else if (e.getName().equals("weights.bin")) {
                    weights = zip.readAllBytes();
                }
            }
        } catch (java.io.IOException | IllegalArgumentException e) {
            throw new java.io.IOException(file + " is not a readable GRANITE model: " + e.getMessage(), e);
        }
        if (json == null || weights == null) {
            throw new java.io.IOException(file + " is not a GRANITE model (model.json or weights.bin missing)");
        }
        GraniteConfig config;
        Vocabulary vocab;
        List<Microarchitecture> cpus = new ArrayList<>();
        try {
            com.fasterxml.jackson.databind.JsonNode meta = JSON.readTree(json);
            if (!FORMAT.equals(meta.path("format").asText())) {
                throw new java.io.IOException("format '" + meta.path("format").asText() + "', expected " + FORMAT);
            }
            config = JSON.treeToValue(meta.get("config"), GraniteConfig.class);
            vocab = JSON.treeToValue(meta.get("vocabulary"), Vocabulary.class);
            meta.get("cpus").forEach(n -> cpus.add(Microarchitecture.parse(n.asText())));
            if (config == null || vocab == null || cpus.isEmpty()) {
                throw new java.io.IOException("configuration, vocabulary or CPUs missing");
            }
        } catch (java.io.IOException | RuntimeException e) {
            throw new java.io.IOException(file + " has unusable model metadata: " + e.getMessage(), e);
        }
        GraniteModel model = new GraniteModel(config, vocab, cpus);
        try (java.io.DataInputStream data = new java.io.DataInputStream(new java.io.ByteArrayInputStream(weights))) {
            int count = data.readInt();
            if (count != model.network.params.size()) {
                throw new java.io.IOException("has " + count + " parameters, the configuration needs "
                        + model.network.params.size());
            }
            for (int k = 0; k < count; k++) {
                String name = data.readUTF();
                NDArray target = model.network.params.get(name);
                int rank = data.readInt();
                long[] shape = new long[rank];
                for (int d = 0; d < rank; d++) {
                    shape[d] = data.readLong();
                }
                if (target == null || !java.util.Arrays.equals(shape, target.getShape().getShape())) {
                    throw new java.io.IOException("parameter " + name + " " + java.util.Arrays.toString(shape)
                            + " does not fit the configuration");
                }
                float[] v = new float[(int) target.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = data.readFloat();
                }
                target.set(v);
            }
        } catch (java.io.IOException e) {
            model.close();
            throw new java.io.IOException(file + ": " + e.getMessage()
                    + (e instanceof java.io.EOFException ? " (the file is truncated)" : ""), e);
        }
        return model;
    }

    private final java.util.concurrent.atomic.AtomicLong unknownTokens = new java.util.concurrent.atomic.AtomicLong();

    /** Node tokens seen in predictions that were not in the vocabulary (mapped to the unknown token). */
    public long unknownTokens() {
        return unknownTokens.get();
    }

    /** The CPUs of the model's heads, in head order. */
    public List<Microarchitecture> cpus() {
        return cpus;
    }

    private static final String FORMAT = "basalt-granite-1";
    private static final com.fasterxml.jackson.databind.ObjectMapper JSON = new com.fasterxml.jackson.databind.ObjectMapper();

    @Override
    public void close() {
        network.close();
        manager.close();
    }
}

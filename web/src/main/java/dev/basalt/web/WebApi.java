package dev.basalt.web;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.core.ThroughputEstimator;
import dev.basalt.decoder.Assembly;
import dev.basalt.decoder.AssemblyException;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.ControlFlow;
import dev.basalt.decoder.DecodeException;
import dev.basalt.decoder.ElfCode;
import dev.basalt.simulator.Bottleneck;
import dev.basalt.simulator.bounds.Bounds;
import dev.basalt.simulator.InstructionTable;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.SimulatorEstimator;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.Timeline;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * What the page asks and what it is told, without the server: blocks in (assembly, hex, or an object file's
 * bytes), for each block and chosen CPU and estimator a prediction with its interval and notes, and the simulator's
 * details — bounds, bottleneck, port table, instruction table, timeline, and each instruction's share of the
 * bottleneck. Nothing from a request names a file or a program: estimators are chosen from a fixed list, and an
 * upload is parsed in memory. Thread-safe.
 */
public final class WebApi {

    /** Estimators the page offers (no model files: a request names no path). */
    public static final List<String> ESTIMATORS = List.of("granite", "ithemal", "simulator", "bounds");
    /** What the page predicts with when it opens: every command's default. */
    public static final String DEFAULT_ESTIMATOR = "granite";

    /** Most blocks one request predicts. */
    public static final int MAX_BLOCKS = 64;

    private static final Pattern HEX_LINE = Pattern.compile("\\s*(0[xX])?[0-9a-fA-F]+(\\s+[0-9a-fA-F]{2})*\\s*");
    private static final ObjectMapper JSON = dev.basalt.core.ReportJson.mapper();

    /** A request the page can correct: its message says what and where (line, column). */
    public static final class BadRequest extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadRequest(String message) {
            super(message);
        }
    }

    private final Map<String, Optional<ThroughputEstimator>> estimators = new ConcurrentHashMap<>();
    private final Map<Microarchitecture, Simulator> simulators = new ConcurrentHashMap<>();
    /** The CPUs the page ticks when it opens: the command line's default CPUs (its caller's). */
    private final List<Microarchitecture> defaultCpus;

    /** The page's API with {@code defaultCpus} ticked when it opens and GRANITE, every command's default model. */
    public WebApi(List<Microarchitecture> defaultCpus) {
        this.defaultCpus = List.copyOf(defaultCpus);
    }

    /** Haswell ticked when the page opens. */
    public WebApi() {
        this(List.of(Microarchitecture.HASWELL));
    }
    private final Map<Microarchitecture, SimulatorEstimator> explainers = new ConcurrentHashMap<>();

    private Optional<ThroughputEstimator> estimator(String name) {
        return estimators.computeIfAbsent(name, n -> {
            try {
                return Optional.of(Estimators.load(n));
            } catch (RuntimeException missing) {
                return Optional.empty();  // not in this build (the web module alone has the simulator's)
            }
        });
    }

    /** The CPUs with simulator tables and the estimators that load, for the page's choices. */
    public ObjectNode info() {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode cpus = root.putArray("cpus");
        for (Microarchitecture m : Microarchitecture.all()) {
            if (SimulatorParams.imported(m).isPresent()) {
                cpus.addObject().put("name", m.llvmName()).put("title", m.toString()).put("evidence", m.evidence());
            }
        }
        ArrayNode names = root.putArray("estimators");
        for (String name : ESTIMATORS) {
            if (estimator(name).isPresent()) {
                names.add(name);
            }
        }
        root.put("max_blocks", MAX_BLOCKS);
        ArrayNode ticked = root.putArray("default_cpus");
        defaultCpus.forEach(m -> ticked.add(m.llvmName()));
        // (the web module alone has only the simulator's models)
        root.put("default_estimator", estimator(DEFAULT_ESTIMATOR).isPresent() ? DEFAULT_ESTIMATOR : "simulator");
        return root;
    }

    /** One block to predict and where it came from. */
    private record Input(String hex, String source) {
    }

    /**
     * Predicts the blocks of {@code request}: {@code {"text", "format": auto|hex|intel|att, "cpus": [...],
     * "estimators": [...]}}.
     *
     * @throws BadRequest for input the page should show back (a line and column, an unknown CPU, too many blocks)
     */
    public ObjectNode predict(JsonNode request) {
        String text = request.path("text").asText("");
        String format = request.path("format").asText("auto");
        List<Input> inputs = blocks(text, format);
        return predict(inputs, cpus(request), chosen(request));
    }

    /** Predicts the loops (else the costliest blocks) of an uploaded ELF object file, program or library. */
    public ObjectNode upload(byte[] bytes, String name, JsonNode request) {
        ElfCode.Functions found;
        try {
            found = ElfCode.functions(bytes, name);
        } catch (IOException e) {
            throw new BadRequest(e.getMessage());
        }
        List<Input> inputs = new ArrayList<>();
        List<Input> others = new ArrayList<>();
        for (ElfCode.Function f : found.functions()) {
            ControlFlow flow = ControlFlow.of(f.bytes(), f.address(), found.knownStarts());
            for (ControlFlow.Block b : flow.blocks()) {
                String where = found.stripped() ? found.exportedName(b.address()).orElse(f.name() + String.format(
                        Locale.ROOT, "+0x%x", b.address() - f.address())) : f.name() + String.format(Locale.ROOT,
                        "+0x%x", b.address() - f.address());
                (b.isSelfLoop() ? inputs : others).add(new Input(b.block().hex(), where + (b.isSelfLoop()
                        ? ", a loop" : "")));
            }
        }
        if (inputs.isEmpty() && others.isEmpty()) {
            throw new BadRequest(name + " holds no code");
        }
        for (int k = 0; inputs.size() < MAX_BLOCKS && k < others.size(); k++) {
            inputs.add(others.get(k));
        }
        return predict(inputs.subList(0, Math.min(MAX_BLOCKS, inputs.size())), cpus(request), chosen(request));
    }

    private static List<Microarchitecture> cpus(JsonNode request) {
        List<Microarchitecture> cpus = new ArrayList<>();
        for (JsonNode c : request.path("cpus")) {
            Microarchitecture m = Microarchitecture.find(c.asText())
                    .orElseThrow(() -> new BadRequest("unknown CPU '" + c.asText() + "'"));
            if (SimulatorParams.imported(m).isEmpty()) {
                throw new BadRequest("no simulator table for CPU '" + c.asText() + "'");
            }
            if (!cpus.contains(m)) {
                cpus.add(m);
            }
        }
        if (cpus.isEmpty()) {
            cpus.add(Microarchitecture.HASWELL);
        }
        if (cpus.size() > 6) {
            throw new BadRequest("at most 6 CPUs a request, not " + cpus.size());
        }
        return cpus;
    }

    private List<String> chosen(JsonNode request) {
        List<String> names = new ArrayList<>();
        for (JsonNode e : request.path("estimators")) {
            String name = e.asText();
            if (!ESTIMATORS.contains(name)) {
                throw new BadRequest("unknown estimator '" + name + "': choose from " + ESTIMATORS);
            }
            if (estimator(name).isEmpty()) {
                throw new BadRequest("estimator '" + name + "' is not in this build");
            }
            if (!names.contains(name)) {
                names.add(name);
            }
        }
        if (names.isEmpty()) {
            names.add("simulator");
        }
        return names;
    }

    /** The blocks of a pasted text: hex lines, or assembly cut as an assembler cuts it. */
    static List<Input> blocks(String text, String format) {
        if (!List.of("auto", "hex", "intel", "att").contains(format)) {
            throw new BadRequest("unknown format '" + format + "': auto, hex, intel or att");
        }
        List<String> lines = text.lines().toList();
        boolean hex = format.equals("hex") || format.equals("auto") && !text.isBlank()
                && lines.stream().filter(l -> !l.isBlank()).allMatch(l -> HEX_LINE.matcher(l).matches());
        List<Input> inputs = new ArrayList<>();
        if (hex) {
            for (int l = 0; l < lines.size(); l++) {
                if (!lines.get(l).isBlank()) {
                    inputs.add(new Input(lines.get(l).replaceAll("\\s|0[xX]", ""), "line " + (l + 1)));
                }
            }
        } else {
            Assembly.Syntax syntax = format.equals("intel") ? Assembly.Syntax.INTEL : format.equals("att")
                    ? Assembly.Syntax.ATT : Assembly.Syntax.detect(text);
            try {
                for (Assembly.Block b : Assembly.parse(text, syntax)) {
                    inputs.add(new Input(b.hex(), b.source()));
                }
            } catch (AssemblyException e) {
                throw new BadRequest((syntax == Assembly.Syntax.ATT ? "AT&T" : "Intel") + " syntax: "
                        + e.getMessage());
            }
        }
        if (inputs.isEmpty()) {
            throw new BadRequest("no instruction: paste hex (one block a line) or assembly");
        }
        if (inputs.size() > MAX_BLOCKS) {
            throw new BadRequest(inputs.size() + " blocks: at most " + MAX_BLOCKS + " a request");
        }
        return inputs;
    }

    private ObjectNode predict(List<Input> inputs, List<Microarchitecture> cpus, List<String> names) {
        ObjectNode root = JSON.createObjectNode();
        ArrayNode out = root.putArray("blocks");
        for (Input in : inputs) {
            ObjectNode b = out.addObject();
            b.put("input", in.source()).put("hex", in.hex());
            BasicBlock block;
            try {
                block = BasicBlock.fromHex(in.hex());
            } catch (DecodeException e) {
                b.put("error", e.getMessage());
                continue;
            }
            ArrayNode text = b.putArray("instructions");
            block.instructions().forEach(i -> text.add(i.intelSyntax()));
            ArrayNode predictions = b.putArray("predictions");
            for (Microarchitecture cpu : cpus) {
                for (String name : names) {
                    ObjectNode p = predictions.addObject().put("cpu", cpu.llvmName()).put("estimator", name);
                    ThroughputEstimator e = estimator(name).orElseThrow();
                    Optional<Prediction> got = e.supported().contains(cpu)
                            ? e.predictEach(List.of(block), cpu).get(0) : Optional.empty();
                    if (got.isEmpty()) {
                        p.put("error", e.supported().contains(cpu) ? name + " cannot predict this block on " + cpu
                                : name + " has no model for " + cpu);
                        continue;
                    }
                    Prediction pr = got.get();
                    p.put("cycles", pr.cyclesPerIteration());
                    p.set("source", dev.basalt.core.ReportJson.source(pr.source(name)));
                    pr.interval().ifPresent(iv -> p.put("low", iv.low()).put("high", iv.high()));
                    ArrayNode notes = p.putArray("notes");
                    pr.notes().forEach(notes::add);
                }
            }
            ArrayNode details = b.putArray("details");
            for (Microarchitecture cpu : cpus) {
                details.add(details(block, cpu));
            }
        }
        return root;
    }

    /** The simulator's view of one block on one CPU: one story (see docs/views.md). */
    private ObjectNode details(BasicBlock block, Microarchitecture cpu) {
        ObjectNode d = JSON.createObjectNode().put("cpu", cpu.llvmName());
        Simulator sim = simulators.computeIfAbsent(cpu, m -> new Simulator(SimulatorParams.standard(m)));
        Simulator.Options options = Simulator.Options.defaults();
        if (dev.basalt.core.IsaSupport.unsupported(block, cpu).isPresent()) {
            d.put("error", dev.basalt.core.IsaSupport.unsupported(block, cpu).get());
            return d;
        }
        Simulator.Result r = sim.run(block, options);
        Bounds bounds = sim.bounds(block, options);
        Bottleneck bottleneck = sim.bottleneck(block, options);
        d.put("cycles", r.cyclesPerIteration());
        ObjectNode bn = d.putObject("bottleneck").put("kind", bottleneck.kind().name().toLowerCase(Locale.ROOT))
                .put("resource", bottleneck.resource()).put("cycles", bottleneck.cycles())
                .put("description", bottleneck.describe());
        ArrayNode on = bn.putArray("instructions");
        bottleneck.instructions().forEach(on::add);
        ObjectNode bs = d.putObject("bounds");
        for (Bounds.Kind k : Bounds.Kind.values()) {
            bs.put(k.name().toLowerCase(Locale.ROOT), bounds.value(k));
        }
        bs.put("winner", bounds.winner().name().toLowerCase(Locale.ROOT)).put("port_set", bounds.portSet());
        List<String> ports = sim.params().ports();
        double[] loads = bounds.portLoads();
        ArrayNode portNames = d.putArray("ports");
        ArrayNode portLoads = d.putArray("port_loads");
        List<Integer> used = new ArrayList<>();
        for (int p = 0; p < ports.size(); p++) {
            if (loads[p] > 1e-9) {
                used.add(p);
                portNames.add(ports.get(p));
                portLoads.add(loads[p]);
            }
        }
        ArrayNode table = d.putArray("table");
        List<InstructionTable.Row> rows = InstructionTable.of(bounds);
        for (int i = 0; i < block.size(); i++) {
            InstructionTable.Row row = rows.get(i);
            ObjectNode t = table.addObject().put("uops", row.unfused()).put("fused", row.fused())
                    .put("latency", row.latency()).put("waits", r.waitCycles()[i]);
            ArrayNode cells = t.putArray("ports");
            for (int p : used) {
                cells.add(row.portCycles()[p]);
            }
        }
        ArrayNode timeline = d.putArray("timeline");
        for (int[] row : Timeline.rows(block, r, sim.frontEnd(block, options))) {
            ArrayNode a = timeline.addArray();
            for (int v : row) {
                a.add(v);
            }
        }
        SimulatorEstimator explainer = explainers.computeIfAbsent(cpu, m -> (SimulatorEstimator) estimator("simulator")
                .orElseThrow());
        ArrayNode shares = d.putArray("shares");
        explainer.bottleneckShares(block, cpu).forEach(shares::add);
        return d;
    }

    /** The request body as JSON, or a bad request naming why not. */
    public static JsonNode parse(String body) {
        try {
            JsonNode n = JSON.readTree(body);
            if (n == null || !n.isObject()) {
                throw new BadRequest("the request is not a JSON object");
            }
            return n;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new BadRequest("the request is not JSON: " + e.getOriginalMessage());
        }
    }

    /** Keeps the page's first choices: {@code {"cpus": [...], "estimators": [...]}} from query parameters. */
    public static JsonNode choices(List<String> cpus, List<String> names) {
        ObjectNode n = JSON.createObjectNode();
        ArrayNode c = n.putArray("cpus");
        cpus.forEach(c::add);
        ArrayNode e = n.putArray("estimators");
        names.forEach(e::add);
        return n;
    }

    static Map<String, Object> error(String message) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("error", message);
        return m;
    }
}

package dev.basalt.explain;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.basalt.decoder.Dependency;
import dev.basalt.decoder.DependencyKind;
import dev.basalt.decoder.Instruction;
import dev.basalt.simulator.Bottleneck;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/** Renders an {@link Explanation} as text for the terminal, as JSON, or as one self-contained HTML page. */
public final class Reports {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Reports() {
    }

    /** Text for the terminal. */
    public static String text(Explanation e) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "%s on %s: %.2f cycles/iteration%s%n", e.model(), e.uarch(),
                e.prediction(), e.source().isFallback() ? "  source: " + e.source().estimator() : ""));
        // what the prediction itself says: a fallback to the model's prior, an instruction whose cost is not modelled
        e.notes().forEach(n -> sb.append("note: ").append(n).append('\n'));
        e.bottleneck().ifPresent(b -> sb.append("bottleneck: ").append(b.describe()).append('\n'));
        e.bounds().ifPresent(b -> sb.append("bounds: ").append(b.describe()).append('\n'));
        e.anchor().ifPresent(a -> sb.append(anchorLine(a)).append('\n'));
        List<Double> c = e.contributions();
        String source = e.shapley().isPresent() ? "Shapley over instruction removal"
                : c.isEmpty() ? "" : "the model's own attribution";
        Set<Integer> anchored = anchoredInstructions(e);
        sb.append(c.isEmpty() ? "instructions:\n" : "instructions (contribution in cycles: " + source + "):\n");
        for (int i = 0; i < e.block().size(); i++) {
            Instruction insn = e.block().instruction(i);
            sb.append(String.format(Locale.ROOT, "  %s %2d %s  %-40s", anchored.contains(i) ? "*" : " ", i,
                    c.isEmpty() ? "" : String.format(Locale.ROOT, "%+7.2f", c.get(i)), insn.intelSyntax()));
            sb.append('\n');
        }
        if (e.shapley().isPresent() && !e.modelContributions().isEmpty()) {
            sb.append("the model's own attribution:");
            for (double v : e.modelContributions()) {
                sb.append(String.format(Locale.ROOT, " %+.2f", v));
            }
            if (e.modelBaseline() != 0) {
                sb.append(String.format(Locale.ROOT, " (baseline %+.2f)", e.modelBaseline()));
            }
            sb.append('\n');
        }
        sb.append("* = anchored instruction; dependencies: ");
        List<String> deps = e.dependencies().stream().filter(d -> d.kind() == DependencyKind.RAW)
                .map(Dependency::toString).toList();
        sb.append(deps.isEmpty() ? "none (RAW)" : String.join(", ", deps)).append('\n');
        return sb.toString();
    }

    private static String anchorLine(Anchors.Result a) {
        return String.format(Locale.ROOT, "anchor: %s  precision %.2f (≥ %.2f with 90%% confidence: %s; bucket %.2f "
                        + "cycles), coverage %.3f, %d model queries%s", a.features().isEmpty() ? "{}" : a.features()
                        .stream().map(Feature::name).toList(), a.precision(), a.precisionLow(),
                a.meetsThreshold() ? "yes" : "no", a.bucket(), a.coverage(), a.queries(), a.meetsThreshold() ? "" : " (no anchor reached the threshold: the most "
                        + "precise candidate)");
    }

    private static Set<Integer> anchoredInstructions(Explanation e) {
        Set<Integer> out = new HashSet<>();
        e.anchor().ifPresent(a -> a.features().forEach(f -> {
            if (f instanceof Feature.Inst i) {
                out.add(i.index());
            } else if (f instanceof Feature.Dep d) {
                out.add(d.producer());
                out.add(d.consumer());
            }
        }));
        return out;
    }

    /** JSON (one object). */
    public static String json(Explanation e) {
        ObjectNode root = JSON.createObjectNode();
        root.put("hex", e.block().hex());
        root.put("model", e.model());
        root.put("mcpu", e.uarch().llvmName());
        root.put("cycles_per_iteration", e.prediction());
        root.set("source", dev.basalt.core.ReportJson.source(e.source()));
        ArrayNode notes = root.putArray("notes");
        e.notes().forEach(notes::add);
        ArrayNode insns = root.putArray("instructions");
        List<Double> shap = e.shapley().map(Shapley.Result::contributions).orElse(List.of());
        for (int i = 0; i < e.block().size(); i++) {
            Instruction insn = e.block().instruction(i);
            ObjectNode n = insns.addObject();
            n.put("index", i);
            n.put("offset", insn.offset());
            n.put("bytes", insn.hex());
            n.put("intel", insn.intelSyntax());
            if (!shap.isEmpty()) {
                n.put("shapley_cycles", shap.get(i));
            }
            if (!e.modelContributions().isEmpty()) {
                n.put("model_cycles", e.modelContributions().get(i));
            }
        }
        if (!e.modelContributions().isEmpty()) {
            root.put("model_baseline", e.modelBaseline());
        }
        ArrayNode deps = root.putArray("dependencies");
        for (Dependency d : e.dependencies()) {
            ObjectNode n = deps.addObject();
            n.put("producer", d.producer());
            n.put("consumer", d.consumer());
            n.put("kind", d.kind().name());
            n.put("resource", d.resource().name());
            n.put("loop_carried", d.loopCarried());
        }
        e.anchor().ifPresent(a -> {
            ObjectNode n = root.putObject("anchor");
            ArrayNode f = n.putArray("features");
            a.features().forEach(x -> f.add(x.name()));
            n.put("precision", a.precision());
            n.put("precision_lower_bound", a.precisionLow());
            n.put("bucket_cycles", a.bucket());
            n.put("coverage", a.coverage());
            n.put("meets_threshold", a.meetsThreshold());
            n.put("queries", a.queries());
            n.put("samples", a.samples());
            n.put("seconds", e.anchorSeconds());
        });
        e.shapley().ifPresent(s -> {
            ObjectNode n = root.putObject("shapley");
            n.put("empty_block_cycles", s.emptyValue());
            n.put("queries", s.queries());
            n.put("permutations", s.permutations());
            n.put("seconds", e.shapleySeconds());
        });
        e.bottleneck().ifPresent(b -> root.set("bottleneck", bottleneck(b)));
        e.bounds().ifPresent(b -> {
            ObjectNode n = root.putObject("bounds");
            for (dev.basalt.simulator.bounds.Bounds.Kind k : dev.basalt.simulator.bounds.Bounds.Kind.values()) {
                n.put(k.name().toLowerCase(Locale.ROOT), b.value(k));
            }
            n.put("winner", b.winner().name().toLowerCase(Locale.ROOT));
            n.put("port_set", b.portSet());
            ArrayNode critical = n.putArray("critical");
            b.critical().forEach(critical::add);
        });
        return dev.basalt.core.ReportJson.pretty(root);
    }

    private static ObjectNode bottleneck(Bottleneck b) {
        ObjectNode n = JSON.createObjectNode();
        n.put("kind", b.kind().name().toLowerCase(Locale.ROOT));
        n.put("resource", b.resource());
        ArrayNode on = n.putArray("instructions");
        b.instructions().forEach(on::add);
        n.put("cycles", b.cycles());
        n.put("description", b.describe());
        n.put("front_end_bound", b.frontEndBound());
        n.put("dispatch_bound", b.dispatchBound());
        n.put("port_bound", b.portBound());
        n.put("busiest_port", b.busiestPort());
        n.put("chain_bound", b.chainBound());
        ArrayNode chain = n.putArray("chain");
        b.chain().forEach(chain::add);
        return n;
    }

    /** One self-contained HTML page (inline CSS and SVG, no scripts, no external resources). */
    public static String html(Explanation e) {
        return HtmlPage.render(e, anchoredInstructions(e));
    }
}

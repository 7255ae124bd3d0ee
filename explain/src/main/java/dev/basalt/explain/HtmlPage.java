package dev.basalt.explain;

import dev.basalt.decoder.Dependency;
import dev.basalt.decoder.DependencyKind;
import dev.basalt.decoder.Instruction;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The HTML rendering of an {@link Explanation}: the block with each instruction shaded by its contribution
 * (warm = adds cycles, cool = saves them), RAW dependency arrows on the left (solid within the iteration,
 * dashed across the loop back-edge, red when anchored), the anchor's features with precision and coverage,
 * and the simulator's bottleneck. One file: inline CSS and SVG, no scripts.
 */
final class HtmlPage {

    private static final int ROW = 30;
    private static final int TOP = 10;
    private static final int LANE = 11;
    private static final int TEXT_WIDTH = 430;
    private static final int BAR_WIDTH = 180;

    private HtmlPage() {
    }

    static String render(Explanation e, Set<Integer> anchored) {
        StringBuilder h = new StringBuilder(16_384);
        String title = String.format(Locale.ROOT, "%s on %s: %.2f cycles/iteration", e.model(), e.uarch(),
                e.prediction());
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
                .append(esc("basalt explain — " + title)).append("</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px;color:#1d2330;"
                        + "background:#fbfbfd}\n")
                .append("h1{font-size:20px;margin:0 0 4px}\n.meta{color:#5b6475;font-size:13px;margin-bottom:14px}\n")
                .append(".meta code{background:#eef0f5;padding:1px 4px;border-radius:3px}\n")
                .append(".cards{display:flex;gap:14px;flex-wrap:wrap;margin-bottom:16px}\n")
                .append(".card{background:#fff;border:1px solid #dfe3ea;border-radius:8px;padding:10px 14px;"
                        + "min-width:230px;font-size:13px}\n.card h2{font-size:13px;text-transform:uppercase;"
                        + "letter-spacing:.04em;color:#5b6475;margin:0 0 6px}\n")
                .append(".chip{display:inline-block;background:#ffe3dc;color:#8a2a12;border:1px solid #f3b7a8;"
                        + "border-radius:12px;padding:1px 9px;margin:2px 4px 2px 0;font-family:ui-monospace,"
                        + "Menlo,monospace;font-size:12px}\n")
                .append(".num{font-variant-numeric:tabular-nums}\n.warn{color:#9a5b00}\n")
                .append("svg text{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:13px}\n")
                .append("svg .small{font-size:11px;fill:#5b6475}\n")
                .append("footer{color:#5b6475;font-size:12px;margin-top:12px;max-width:900px}\n")
                .append("</style></head><body>\n");
        h.append("<h1>").append(esc(title)).append("</h1>\n");
        h.append("<div class=\"meta\">block <code>").append(esc(e.block().hex())).append("</code> · ")
                .append(e.block().size()).append(" instructions</div>\n");
        e.notes().forEach(n -> h.append("<div class=\"meta\">note: ").append(esc(n)).append("</div>\n"));
        h.append("<div class=\"cards\">\n");
        e.anchor().ifPresent(a -> {
            h.append("<div class=\"card\"><h2>Anchor</h2>");
            if (a.features().isEmpty()) {
                h.append("<div>no feature needed</div>");
            }
            for (Feature f : a.features()) {
                h.append("<span class=\"chip\">").append(esc(f.name())).append("</span>");
            }
            h.append(String.format(Locale.ROOT, "<div class=\"num\">precision %.2f (lower bound %.2f) · coverage "
                    + "%.3f</div><div class=\"num small\">bucket %.2f cycles · %d model queries, %d perturbations"
                    + "</div>", a.precision(), a.precisionLow(), a.coverage(), a.bucket(), a.queries(), a.samples()));
            if (!a.meetsThreshold()) {
                h.append("<div class=\"warn\">no anchor reached the precision threshold; this is the most "
                        + "precise candidate</div>");
            }
            h.append("<div class=\"small\">Keep these and the prediction stays in its bucket with this "
                    + "precision, whatever else is perturbed.</div></div>\n");
        });
        e.bottleneck().ifPresent(b -> h.append("<div class=\"card\"><h2>Simulator bottleneck</h2><div>")
                .append(esc(b.describe())).append(String.format(Locale.ROOT, "</div><div class=\"num small\">"
                        + "bounds: %s</div></div>%n", esc(b.bounds()))));
        e.bounds().ifPresent(b -> h.append("<div class=\"card\"><h2>Analytical bounds</h2><div class=\"num\">")
                .append(esc(b.describe())).append("</div></div>\n"));
        List<Double> c = e.contributions();
        h.append("<div class=\"card\"><h2>Shading</h2><div>")
                .append(e.shapley().isPresent() ? "Shapley contribution over instruction removal (cycles; they add "
                        + "up to the prediction)" : c.isEmpty() ? "no attribution" : "the model's own per-instruction "
                        + "contribution (cycles)")
                .append("</div><div class=\"small\">arrows: RAW dependencies (dashed: across the loop back-edge; "
                        + "red: anchored)</div></div>\n</div>\n");

        int n = e.block().size();
        List<Dependency> raw = new ArrayList<>();
        for (Dependency d : e.dependencies()) {
            if (d.kind() == DependencyKind.RAW && d.producer() != d.consumer()) {
                raw.add(d);
            }
        }
        Set<String> anchoredDeps = new HashSet<>();
        e.anchor().ifPresent(a -> a.features().forEach(f -> {
            if (f instanceof Feature.Dep d) {
                anchoredDeps.add(d.producer() + ">" + d.consumer() + ">" + d.kind());
                if (d.kind() != DependencyKind.RAW) {
                    raw.add(new Dependency(d.producer(), d.consumer(), d.kind(),
                            dev.basalt.decoder.Resource.MEMORY, false));
                }
            }
        }));
        raw.sort(Comparator.comparingInt((Dependency d) -> Math.abs(d.consumer() - d.producer())));
        int lanes = Math.min(12, raw.size());
        int gutter = 24 + LANE * Math.max(1, lanes);
        int width = gutter + 40 + TEXT_WIDTH + BAR_WIDTH + 70;
        int height = TOP * 2 + ROW * n;
        double max = 1e-9;
        for (double v : c) {
            max = Math.max(max, Math.abs(v));
        }
        h.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" role=\"img\">%n", width, height, width, height));
        h.append("<defs><marker id=\"a\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" "
                + "markerHeight=\"6\" orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#7a8599\"/></marker>"
                + "<marker id=\"r\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
                + "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#d2381b\"/></marker></defs>\n");
        for (int i = 0; i < n; i++) {
            Instruction insn = e.block().instruction(i);
            int y = TOP + ROW * i;
            double v = c.isEmpty() ? 0 : c.get(i);
            double alpha = Math.min(1, Math.abs(v) / max) * 0.55;
            String fill = v >= 0 ? String.format(Locale.ROOT, "rgba(232,93,53,%.3f)", alpha)
                    : String.format(Locale.ROOT, "rgba(53,120,232,%.3f)", alpha);
            h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\" "
                            + "fill=\"%s\"%s/>%n", gutter, y + 2, 40 + TEXT_WIDTH, ROW - 4, fill,
                    anchored.contains(i) ? " stroke=\"#d2381b\" stroke-width=\"2\"" : " stroke=\"#e3e6ec\""));
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"small\">%d</text>%n", gutter + 8,
                    y + ROW / 2 + 4, i));
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\"%s>%s</text>%n", gutter + 36,
                    y + ROW / 2 + 5, anchored.contains(i) ? " font-weight=\"bold\"" : "", esc(insn.intelSyntax())));
            if (!c.isEmpty()) {
                int bx = gutter + 48 + TEXT_WIDTH;
                int len = (int) Math.round(Math.abs(v) / max * (BAR_WIDTH - 10));
                h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"10\" rx=\"2\" "
                        + "fill=\"%s\"/>%n", bx, y + ROW / 2 - 5, Math.max(1, len), v >= 0 ? "#e85d35" : "#3578e8"));
                h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" class=\"small\">%+.2f</text>%n",
                        bx + len + 6, y + ROW / 2 + 4, v));
            }
        }
        for (int k = 0; k < raw.size(); k++) {
            Dependency d = raw.get(k);
            int lane = k % Math.max(1, lanes);
            int x0 = gutter - 2;
            int xl = gutter - 14 - LANE * lane;
            int y0 = TOP + ROW * d.producer() + ROW / 2;
            int y1 = TOP + ROW * d.consumer() + ROW / 2;
            boolean hot = anchoredDeps.contains(d.producer() + ">" + d.consumer() + ">" + d.kind());
            h.append(String.format(Locale.ROOT, "<path d=\"M%d,%d C%d,%d %d,%d %d,%d\" fill=\"none\" stroke=\"%s\" "
                            + "stroke-width=\"%s\"%s marker-end=\"url(#%s)\"><title>%s</title></path>%n", x0, y0, xl,
                    y0, xl, y1, x0, y1, hot ? "#d2381b" : "#9aa3b2", hot ? "2.2" : "1.2",
                    d.loopCarried() ? " stroke-dasharray=\"4 3\"" : "", hot ? "r" : "a", esc(d.toString())));
        }
        h.append("</svg>\n<footer>Generated by <code>basalt explain</code>. Anchors after COMET (Chaudhary et al.): "
                + "perturbed blocks are real machine code re-encoded by Zydis; precision is the share of perturbations "
                + "keeping the anchor whose prediction stays in the original's bucket, coverage the share of "
                + "unconstrained perturbations that keep it.</footer>\n</body></html>\n");
        return h.toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

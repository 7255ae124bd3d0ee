package dev.basalt.bench;

import dev.basalt.core.AtomicFiles;
import dev.basalt.core.Estimators;
import dev.basalt.core.Microarchitecture;
import dev.basalt.core.Prediction;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Metrics;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Operand;
import dev.basalt.decoder.Prefix;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Where the tuned simulator's error is (where the residual work started): its predictions on the train and validation
 * splits of the bundled BHive sample — never the test split — grouped by cause: instruction classes the block holds
 * (dividers, FP divide and square root, {@code cvtsi2*} merges, runs of push/pop, fences, locks, load+operation
 * forms), the bound that wins ({@code bounds}' largest), the memory pattern and the block's size. Per group: blocks, mean APE, mean signed error (positive: predicted too slow), the group's share of all
 * absolute error (its part of the MAPE) and of the blocks over 25% error. A block is in every class it holds, so
 * the class rows overlap; the bound, memory and size rows partition the blocks.
 *
 * <pre>
 * mvn -q -DskipTests package -pl bench -am
 * java -cp bench/target/benchmarks.jar dev.basalt.bench.ResidualReport docs/residuals.md
 * </pre>
 */
public final class ResidualReport {

    private ResidualReport() {
    }

    /** One block's prediction and what it holds. */
    private record Row(double measured, double predicted, String bound, String memory, String size,
                       Set<String> classes) {
        double ape() {
            return Math.abs(predicted - measured) / measured;
        }

        double signed() {
            return (predicted - measured) / measured;
        }
    }

    /** The instruction classes of the residual causes that {@code block} holds (empty: none of them). */
    static Set<String> classes(BasicBlock block) {
        Set<String> out = new LinkedHashSet<>();
        int pushPop = 0;
        for (Instruction i : block.instructions()) {
            String m = i.mnemonic();
            if (m.equals("div") || m.equals("idiv")) {
                out.add("integer divide");
            }
            if (m.matches("v?(div|sqrt)[sp][sd]")) {
                out.add("FP divide or square root");
            }
            if (m.matches("v?cvtsi2s[sd]|v?cvts[sd]2s[sd]")) {
                out.add("cvtsi2s*/cvts*2s* merge");
            }
            if ((m.equals("sbb") || m.equals("adc")) && i.visibleOperands().size() == 2
                    && i.visibleOperands().get(0) instanceof Operand.RegisterOperand a
                    && i.visibleOperands().get(1) instanceof Operand.RegisterOperand b
                    && a.register().equals(b.register())) {
                out.add("sbb/adc r, r (flag to mask)");
            }
            if (m.startsWith("set")) {
                out.add("setcc");
            }
            if (m.equals("push") || m.equals("pop")) {
                pushPop++;
            }
            if (m.equals("lfence") || m.equals("mfence") || m.equals("sfence") || m.equals("cpuid")) {
                out.add("fence (lfence, mfence, sfence, cpuid)");
            }
            if (i.has(Prefix.LOCK) || m.equals("xchg") && hasMemory(i)) {
                out.add("locked");
            }
            boolean reads = false;
            boolean writes = false;
            for (Operand o : i.operands()) {
                if (o instanceof Operand.MemoryOperand mem && !m.equals("lea") && !m.startsWith("nop")
                        && !m.startsWith("prefetch")) {
                    reads |= mem.action().read() || mem.action().conditionalRead();
                    writes |= mem.action().write() || mem.action().conditionalWrite();
                }
            }
            if (reads && !writes && !m.equals("push") && !m.equals("pop")
                    && !m.matches("v?mov.*|v?broadcast.*|v?pbroadcast.*|movzx|movsx|movsxd|v?lddqu")) {
                out.add("load+operation form");
            }
        }
        if (pushPop >= 2) {
            out.add("two or more push/pop");
        }
        // BHive maps every page to one; a block whose stack pointer moves far each iteration touches a new page
        // every few iterations (push/pop runs after `add rsp, N` measured slower as N grows: a cause to model)
        if (pushPop >= 1 && Math.abs(stackStride(block)) >= 128) {
            out.add("push/pop, stack moving >= 128 bytes an iteration");
        }
        if (out.isEmpty()) {
            out.add("none of these");
        }
        return out;
    }

    /** How far the block moves rsp an iteration: push, pop, and add/sub of rsp by an immediate. */
    static long stackStride(BasicBlock block) {
        long stride = 0;
        for (Instruction i : block.instructions()) {
            String m = i.mnemonic();
            if (m.equals("push")) {
                stride -= 8;
            } else if (m.equals("pop")) {
                stride += 8;
            } else if ((m.equals("add") || m.equals("sub")) && i.operands().size() >= 2
                    && i.operands().get(0) instanceof Operand.RegisterOperand r && r.register().name().equals("rsp")
                    && i.operands().get(1) instanceof Operand.ImmediateOperand imm) {
                stride += m.equals("add") ? imm.value() : -imm.value();
            }
        }
        return stride;
    }

    /** no memory, loads only, stores only, or loads and stores. */
    static String memory(BasicBlock block) {
        boolean loads = false;
        boolean stores = false;
        for (Instruction i : block.instructions()) {
            String m = i.mnemonic();
            for (Operand o : i.operands()) {
                if (o instanceof Operand.MemoryOperand mem && !m.equals("lea") && !m.startsWith("nop")
                        && !m.startsWith("prefetch")) {
                    loads |= mem.action().read() || mem.action().conditionalRead();
                    stores |= mem.action().write() || mem.action().conditionalWrite();
                }
            }
        }
        return loads && stores ? "loads and stores" : loads ? "loads only" : stores ? "stores only" : "no memory";
    }

    static String size(BasicBlock block) {
        int n = block.size();
        return n <= 3 ? "1-3 instructions" : n <= 10 ? "4-10 instructions" : n <= 25 ? "11-25 instructions"
                : "26+ instructions";
    }

    private static boolean hasMemory(Instruction i) {
        return i.operands().stream().anyMatch(o -> o instanceof Operand.MemoryOperand);
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ResidualReport OUT.md");
            System.exit(2);
        }
        Dataset data = Dataset.bundled();
        List<LabelledBlock> rows = new ArrayList<>(data.blocks(SplitScheme.defaults(), Split.TRAIN));
        rows.addAll(data.blocks(SplitScheme.defaults(), Split.VALIDATION));
        var simulator = Estimators.load("simulator");
        var bounds = Estimators.load("bounds");
        List<String> boundNames = bounds.detailNames();
        StringBuilder md = new StringBuilder("# Where the tuned simulator errs\n\n<!-- Generated by "
                + "bench/src/main/java/dev/basalt/bench/ResidualReport.java; do not edit by hand. -->\n"
                + "The tuned simulator (`simulator`) on the **train and validation splits** of the bundled BHive sample "
                + "(the test split is left alone), by cause. Regenerate:\n\n```sh\nmvn -q -DskipTests package -pl "
                + "bench -am\njava -cp bench/target/benchmarks.jar dev.basalt.bench.ResidualReport docs/residuals.md\n"
                + "```\n\nColumns: blocks in the group; their mean APE; their mean signed error (positive: predicted "
                + "slower than measured); the group's share of all the absolute error (its part of the MAPE); its "
                + "share of the blocks with more than 25% error. A block is in every instruction class it holds "
                + "(those rows overlap); the bound, memory and size rows partition the blocks.\n");
        for (Microarchitecture cpu : Microarchitecture.measured()) {
            List<BasicBlock> blocks = new ArrayList<>();
            List<Double> measured = new ArrayList<>();
            for (LabelledBlock r : rows) {
                if (r.hasLabel(cpu)) {
                    blocks.add(r.block());
                    measured.add(r.throughput(cpu).getAsDouble());
                }
            }
            List<Optional<Prediction>> sim = new ArrayList<>();
            List<Optional<Prediction>> bnd = new ArrayList<>();
            for (int from = 0; from < blocks.size(); from += 1024) {
                List<BasicBlock> part = blocks.subList(from, Math.min(blocks.size(), from + 1024));
                sim.addAll(simulator.predictEach(part, cpu));
                bnd.addAll(bounds.predictEach(part, cpu));
            }
            List<Row> out = new ArrayList<>();
            for (int k = 0; k < blocks.size(); k++) {
                if (sim.get(k).isEmpty() || bnd.get(k).isEmpty()) {
                    continue;
                }
                Map<String, Double> d = bnd.get(k).get().details();
                String bound = boundNames.stream().max(java.util.Comparator.comparingDouble(
                        n -> d.getOrDefault(n, 0.0))).orElse("?");
                out.add(new Row(measured.get(k), sim.get(k).get().cyclesPerIteration(), bound,
                        memory(blocks.get(k)), size(blocks.get(k)), classes(blocks.get(k))));
            }
            double[] p = out.stream().mapToDouble(Row::predicted).toArray();
            double[] m = out.stream().mapToDouble(Row::measured).toArray();
            md.append(String.format(Locale.ROOT, "\n## %s: %d blocks, MAPE %.2f%%, %d over 25%% error\n", cpu.llvmName(),
                    out.size(), 100 * Metrics.mape(p, m), out.stream().filter(r -> r.ape() > 0.25).count()));
            table(md, "instruction class", out, r -> r.classes());
            table(md, "winning bound", out, r -> Set.of(r.bound()));
            table(md, "memory", out, r -> Set.of(r.memory()));
            table(md, "size", out, r -> Set.of(r.size()));
        }
        AtomicFiles.writeString(Path.of(args[0]), md.toString());
        System.out.println("wrote " + args[0]);
    }

    private static void table(StringBuilder md, String by, List<Row> rows, Function<Row, Set<String>> key) {
        double totalError = rows.stream().mapToDouble(Row::ape).sum();
        long totalBad = rows.stream().filter(r -> r.ape() > 0.25).count();
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Row r : rows) {
            for (String k : key.apply(r)) {
                groups.computeIfAbsent(k, x -> new ArrayList<>()).add(r);
            }
        }
        md.append("\n| ").append(by).append(" | blocks | mean APE | mean signed | share of error | share of >25% |\n")
                .append("|---|---:|---:|---:|---:|---:|\n");
        groups.entrySet().stream()
                .sorted((a, b) -> Double.compare(b.getValue().stream().mapToDouble(Row::ape).sum(),
                        a.getValue().stream().mapToDouble(Row::ape).sum()))
                .forEach(e -> {
                    List<Row> g = e.getValue();
                    double err = g.stream().mapToDouble(Row::ape).sum();
                    long bad = g.stream().filter(r -> r.ape() > 0.25).count();
                    md.append(String.format(Locale.ROOT, "| %s | %d | %.1f%% | %+.1f%% | %.1f%% | %.1f%% |%n", e.getKey(),
                            g.size(), 100 * err / g.size(), 100 * g.stream().mapToDouble(Row::signed).average()
                                    .orElse(0), 100 * err / totalError, totalBad == 0 ? 0 : 100.0 * bad / totalBad));
                });
    }
}

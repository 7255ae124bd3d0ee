package dev.basalt.simulator.mca;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.basalt.core.Microarchitecture;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.Instruction;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the LLVM tools, kept apart from what the import makes of their output ({@link LlvmMcaImporter}):
 * {@code llvm-mc --disassemble} turns Basalt's instructions into AT&T text, {@code llvm-mca} reports its
 * instruction tables or its own throughput of blocks given as regions. Each run is one process, its input in a
 * temporary file, stopped after 600 seconds; a batch a tool rejects is split in halves until the offending block
 * is found.
 */
public final class LlvmMcaRunner {

    /** Blocks per tool run. */
    static final int BATCH = 1000;

    private final String llvmMc;
    private final String llvmMca;
    private final ObjectMapper json = new ObjectMapper();
    /** Wall time spent inside llvm-mca processes by {@link #llvmMcaThroughput}, for speed comparisons. */
    private long llvmMcaNanos;
    private final Map<String, Integer> storeLatencies = new HashMap<>();

    public LlvmMcaRunner(String llvmMc, String llvmMca) {
        this.llvmMc = llvmMc;
        this.llvmMca = llvmMca;
    }

    /** Seconds spent inside llvm-mca (not llvm-mc) by {@link #llvmMcaThroughput} calls so far. */
    public double llvmMcaSeconds() {
        return llvmMcaNanos / 1e9;
    }

    /**
     * llvm-mca's own throughput of each block: cycles per iteration over {@code iterations} iterations, all
     * blocks as regions of one llvm-mca run (NaN for a block llvm-mc or llvm-mca cannot handle).
     */
    public double[] llvmMcaThroughput(List<BasicBlock> blocks, Microarchitecture uarch, int iterations)
            throws IOException, InterruptedException {
        double[] out = new double[blocks.size()];
        java.util.Arrays.fill(out, Double.NaN);
        for (int start = 0; start < blocks.size(); start += BATCH) {
            List<BasicBlock> batch = blocks.subList(start, Math.min(blocks.size(), start + BATCH));
            List<List<String>> asm = disassemble(batch);
            throughput(batch, asm, uarch, iterations, out, start);
        }
        return out;
    }

    private void throughput(List<BasicBlock> blocks, List<List<String>> asm, Microarchitecture uarch, int iterations,
                            double[] out, int offset) throws IOException, InterruptedException {
        StringBuilder in = new StringBuilder();
        List<Integer> included = new ArrayList<>();
        for (int k = 0; k < blocks.size(); k++) {
            if (asm.get(k) == null) {
                continue;
            }
            in.append("# LLVM-MCA-BEGIN b").append(k).append('\n');
            asm.get(k).forEach(l -> in.append(l).append('\n'));
            in.append("# LLVM-MCA-END\n");
            included.add(k);
        }
        if (included.isEmpty()) {
            return;
        }
        long t0 = System.nanoTime();
        Output r = run(List.of(llvmMca, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=" + uarch.llvmName(),
                "-iterations=" + iterations, "--json"), in.toString());
        llvmMcaNanos += System.nanoTime() - t0;
        if (r.exit == 0) {
            JsonNode regions = json.readTree(r.out).path("CodeRegions");
            if (regions.size() == included.size()) {
                for (int k = 0; k < included.size(); k++) {
                    JsonNode summary = regions.get(k).path("SummaryView");
                    out[offset + included.get(k)] = summary.path("TotalCycles").asDouble() / iterations;
                }
                return;
            }
        }
        if (blocks.size() == 1) {
            return;
        }
        int half = blocks.size() / 2;
        throughput(blocks.subList(0, half), asm.subList(0, half), uarch, iterations, out, offset);
        throughput(blocks.subList(half, blocks.size()), asm.subList(half, asm.size()), uarch, iterations, out,
                offset + half);
    }

    /** AT&T text of each instruction per block, or null for a block llvm-mc does not split as Basalt does. */
    List<List<String>> disassemble(List<BasicBlock> batch) throws IOException, InterruptedException {
        List<List<String>> out = new ArrayList<>();
        StringBuilder in = new StringBuilder();
        for (BasicBlock b : batch) {
            for (Instruction i : b.instructions()) {
                in.append('[');
                String hex = i.hex();
                for (int k = 0; k < hex.length(); k += 2) {
                    in.append(k == 0 ? "" : " ").append("0x").append(hex, k, k + 2);
                }
                in.append("] ");
            }
            in.append('\n');
        }
        Output r = run(List.of(llvmMc, "--disassemble", "-triple=x86_64-unknown-linux-gnu"), in.toString());
        List<String> lines = new ArrayList<>();
        String pending = "";
        for (String line : r.out.split("\n")) {
            String t = line.trim();
            if (!t.isEmpty() && !t.startsWith(".") && !t.startsWith("#")) {
                if (t.equals("lock")) { // llvm-mc prints a LOCK prefix on a line of its own
                    pending = "lock ";
                    continue;
                }
                lines.add(pending + t.replace('\t', ' '));
                pending = "";
            }
        }
        int total = batch.stream().mapToInt(BasicBlock::size).sum();
        if (r.exit == 0 && r.err.isBlank() && lines.size() == total) {
            int k = 0;
            for (BasicBlock b : batch) {
                out.add(new ArrayList<>(lines.subList(k, k + b.size())));
                k += b.size();
            }
            return out;
        }
        if (batch.size() == 1) {
            out.add(null);
            return out;
        }
        int half = batch.size() / 2;
        out.addAll(disassemble(batch.subList(0, half)));
        out.addAll(disassemble(batch.subList(half, batch.size())));
        return out;
    }

    /**
     * llvm-mca's {@code --instruction-tables --json} report of the blocks' AT&T text, each block a region, or null
     * when llvm-mca rejects them (the caller splits the batch).
     */
    String instructionTables(List<List<String>> asm, Microarchitecture uarch)
            throws IOException, InterruptedException {
        StringBuilder in = new StringBuilder();
        for (int k = 0; k < asm.size(); k++) {
            in.append("# LLVM-MCA-BEGIN b").append(k).append('\n');
            asm.get(k).forEach(l -> in.append(l).append('\n'));
            in.append("# LLVM-MCA-END\n");
        }
        Output r = run(List.of(llvmMca, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=" + uarch.llvmName(),
                "--instruction-tables", "--json"), in.toString());
        return r.exit == 0 ? r.out : null;
    }

    /**
     * llvm-mca's latency of a plain register store ({@code mov [rax], rcx}) on {@code uarch}: 1 in its older Intel
     * models, 12 in its Golden Cove ones. Asked once per CPU.
     */
    int plainStoreLatency(Microarchitecture uarch) throws IOException {
        Integer known = storeLatencies.get(uarch.llvmName());
        if (known != null) {
            return known;
        }
        int latency = 1;
        try {
            Output r = run(List.of(llvmMca, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=" + uarch.llvmName(),
                    "--instruction-tables", "--json"), "movq %rcx, (%rax)\n");
            JsonNode info = json.readTree(r.out).path("CodeRegions").path(0).path("InstructionInfoView")
                    .path("InstructionList").path(0);
            if (r.exit == 0 && info.has("Latency")) {
                latency = info.path("Latency").asInt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        storeLatencies.put(uarch.llvmName(), latency);
        return latency;
    }

    /** Whether {@code command} (llvm-mc or llvm-mca) runs here ({@code command --version} exits with 0). */
    public static boolean available(String command) {
        try {
            Process p = new ProcessBuilder(command, "--version").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private record Output(int exit, String out, String err) {
    }

    private static Output run(List<String> command, String input) throws IOException, InterruptedException {
        Path in = Files.createTempFile("basalt-import", ".txt");
        try {
            Files.writeString(in, input, StandardCharsets.UTF_8);
            List<String> cmd = new ArrayList<>(command);
            cmd.add(in.toString());
            Process p = new ProcessBuilder(cmd).start();
            CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
                try {
                    return p.getErrorStream().readAllBytes();
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            byte[] out = p.getInputStream().readAllBytes();
            if (!p.waitFor(600, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(command.get(0) + " timed out");
            }
            return new Output(p.exitValue(), new String(out, StandardCharsets.UTF_8),
                    new String(err.join(), StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(in);
        }
    }
}

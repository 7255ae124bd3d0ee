package dev.basalt.difftune;

import dev.basalt.simulator.bounds.CriticalPath;

import java.util.List;

/**
 * Blocks packed for the surrogate: each instruction's tokens (for the embedding bag), its parameter row,
 * zero-idiom flag and critical-chain coefficients, and each block's instructions padded for the LSTM.
 */
final class SurrogateBatch {

    final int blocks;
    final int instructions;
    final int maxInstructions;
    final long[] tokens;
    final long[] tokenInstruction;
    final long[] instructionBlock;
    final long[] blockInstructions;
    final long[] lastInstruction;
    /** [instructions × layout width]: the rows' values (for the forward pass when no table tensor is given). */
    final float[] rows;
    /** [blocks × 2]: dispatch width, ROB size. */
    final float[] globals;
    final float[] zeroIdiom;
    /** [instructions × 2]: critical-chain coefficients of latency and read-advance. */
    final float[] chain;
    /** [instructions × layout width]: the default table's rows, and their critical-chain coefficients. */
    final float[] defaultRows;
    final float[] defaultChain;
    /** [blocks]: the front end's bound (0 for a machine without one). */
    final float[] frontEnd;
    /**
     * [blocks]: the second machine's issue bound (fused micro-ops ÷ issue width, which the rows' micro-op counts
     * do not give), or null for the first machine, whose bound is the rows' micro-ops ÷ the dispatch width.
     */
    final float[] issue;
    /** [blocks]: the simulator's cycles with the default table (what the block does when nothing is changed). */
    final float[] simulated;

    /**
     * @param prepared per block, its prepared form
     * @param rows     per block, per instruction, its row vector
     * @param blockGlobals per block: dispatch width, ROB size
     */
    SurrogateBatch(List<SurrogateModel.Prepared> prepared, List<float[][]> rows, float[][] blockGlobals, int width) {
        this.blocks = prepared.size();
        int insns = 0;
        int tokenCount = 0;
        int maxI = 1;
        for (SurrogateModel.Prepared p : prepared) {
            insns += p.size();
            maxI = Math.max(maxI, p.size());
            for (int[] t : p.tokens()) {
                tokenCount += t.length;
            }
        }
        this.instructions = insns;
        this.maxInstructions = maxI;
        tokens = new long[tokenCount];
        tokenInstruction = new long[tokenCount];
        instructionBlock = new long[insns];
        blockInstructions = new long[blocks * maxI];
        lastInstruction = new long[blocks];
        this.rows = new float[insns * width];
        this.globals = new float[blocks * 2];
        zeroIdiom = new float[insns];
        chain = new float[insns * 2];
        defaultRows = new float[insns * width];
        defaultChain = new float[insns * 2];
        frontEnd = new float[blocks];
        simulated = new float[blocks];
        issue = prepared.isEmpty() || prepared.get(0).issue() < 0 ? null : new float[blocks];
        int i = 0;
        int t = 0;
        for (int b = 0; b < blocks; b++) {
            SurrogateModel.Prepared p = prepared.get(b);
            float[][] r = rows.get(b);
            int n = p.size();
            float[] latency = new float[n];
            float[] readAdvance = new float[n];
            for (int k = 0; k < n; k++) {
                latency[k] = p.zeroIdiom()[k] ? 0f : Math.max(0f, r[k][ParameterLayout.LATENCY]);
                readAdvance[k] = Math.max(0f, r[k][ParameterLayout.READ_ADVANCE]);
            }
            float[][] c = CriticalPath.coefficients(p.block(), p.sources(), latency, readAdvance);
            float[] defaultLatency = new float[n];
            float[] defaultReadAdvance = new float[n];
            for (int k = 0; k < n; k++) {
                defaultLatency[k] = p.zeroIdiom()[k] ? 0f : Math.max(0f, p.defaultRows()[k][ParameterLayout.LATENCY]);
                defaultReadAdvance[k] = Math.max(0f, p.defaultRows()[k][ParameterLayout.READ_ADVANCE]);
            }
            float[][] dc = CriticalPath.coefficients(p.block(), p.sources(), defaultLatency, defaultReadAdvance);
            frontEnd[b] = p.frontEnd();
            simulated[b] = p.simulated();
            if (issue != null) {
                issue[b] = p.issue();
            }
            globals[2 * b] = blockGlobals[b][0];
            globals[2 * b + 1] = blockGlobals[b][1];
            for (int k = 0; k < n; k++, i++) {
                for (int tok : p.tokens()[k]) {
                    tokens[t] = tok;
                    tokenInstruction[t++] = i;
                }
                instructionBlock[i] = b;
                blockInstructions[b * maxI + k] = i;
                System.arraycopy(r[k], 0, this.rows, i * width, width);
                zeroIdiom[i] = p.zeroIdiom()[k] ? 1f : 0f;
                chain[2 * i] = c[0][k];
                chain[2 * i + 1] = c[1][k];
                System.arraycopy(p.defaultRows()[k], 0, defaultRows, i * width, width);
                defaultChain[2 * i] = dc[0][k];
                defaultChain[2 * i + 1] = dc[1][k];
            }
            lastInstruction[b] = (long) b * maxI + n - 1;
        }
    }
}

package dev.basalt.ithemal;

import dev.basalt.datasets.Vocabulary;
import dev.basalt.training.LearnedModel;

import java.util.List;

/**
 * Blocks packed for the two LSTMs: every instruction's token ids padded to the longest instruction
 * ([instructions × maxTokens]), and every block's instruction indices padded to the longest block
 * ([blocks × maxInstructions]). Padding goes after the end, so the LSTM state at each sequence's last real
 * position (the {@code last*} indices into the flattened outputs) is unaffected by it.
 */
final class IthemalBatch implements LearnedModel.Batch {

    final int blocks;
    final int instructions;
    final int maxTokens;
    final int maxInstructions;
    final long[] tokens;
    final long[] lastToken;
    final long[] blockInstructions;
    final long[] lastInstruction;
    final float[] prior;
    /** Per instruction (in batch order), the prior's statistics, row-major [instructions × width], or null. */
    final float[] statistics;
    final int statisticsWidth;
    final int unknownTokens;

    /**
     * @param blockTokens per block, per instruction, its tokens
     * @param prior       the prior's cycles [blocks × heads] or null
     * @param statistics  per block, its instructions' statistics (Priors.statistics), or null
     */
    IthemalBatch(List<List<List<String>>> blockTokens, Vocabulary vocab, float[] prior, List<float[][]> statistics) {
        this.blocks = blockTokens.size();
        this.prior = prior;
        int insns = 0;
        int maxT = 1;
        int maxI = 1;
        for (List<List<String>> b : blockTokens) {
            insns += b.size();
            maxI = Math.max(maxI, b.size());
            for (List<String> t : b) {
                maxT = Math.max(maxT, t.size());
            }
        }
        this.instructions = insns;
        this.maxTokens = maxT;
        this.maxInstructions = maxI;
        tokens = new long[insns * maxT];
        lastToken = new long[insns];
        blockInstructions = new long[blocks * maxI];
        lastInstruction = new long[blocks];
        int i = 0;
        int unknown = 0;
        for (int g = 0; g < blocks; g++) {
            List<List<String>> b = blockTokens.get(g);
            if (b.isEmpty()) {
                throw new IllegalArgumentException("block " + g + " of the batch has no instructions");
            }
            for (int k = 0; k < b.size(); k++, i++) {
                List<String> t = b.get(k);
                for (int j = 0; j < t.size(); j++) {
                    int id = vocab.id(t.get(j));
                    unknown += id == 0 ? 1 : 0;
                    tokens[i * maxT + j] = id;
                }
                lastToken[i] = (long) i * maxT + t.size() - 1;
                blockInstructions[g * maxI + k] = i;
            }
            lastInstruction[g] = (long) g * maxI + b.size() - 1;
        }
        unknownTokens = unknown;
        statisticsWidth = statistics == null || statistics.isEmpty() || statistics.get(0).length == 0 ? 0
                : statistics.get(0)[0].length;
        this.statistics = statistics == null ? null : new float[insns * statisticsWidth];
        if (statistics != null) {
            int row = 0;
            for (float[][] block : statistics) {
                for (float[] insn : block) {
                    System.arraycopy(insn, 0, this.statistics, row++ * statisticsWidth, statisticsWidth);
                }
            }
        }
    }

    @Override
    public int unknownTokens() {
        return unknownTokens;
    }
}

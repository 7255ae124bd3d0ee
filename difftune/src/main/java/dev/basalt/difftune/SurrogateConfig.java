package dev.basalt.difftune;

/**
 * Hyper-parameters of the surrogate and of its training (DESIGN.md §7).
 *
 * @param embedding         token embedding width
 * @param hidden            instruction vector and LSTM width
 * @param learningRate      Adam learning rate (DiffTune: 1e-3)
 * @param epochs            maximum epochs
 * @param batchInstructions maximum instructions per batch
 * @param clipNorm          gradient-norm clip (DiffTune: 5)
 * @param patience          epochs without a better validation MAPE before stopping
 * @param seed              initialisation and shuffling seed
 */
public record SurrogateConfig(int embedding, int hidden, double learningRate, int epochs, int batchInstructions,
                              double clipNorm, int patience, long seed) {

    public SurrogateConfig {
        if (embedding < 1 || hidden < 1 || epochs < 1 || batchInstructions < 1 || patience < 1) {
            throw new IllegalArgumentException("surrogate sizes, epochs, batch and patience must be >= 1");
        }
        if (!(learningRate > 0) || !(clipNorm > 0)) {
            throw new IllegalArgumentException("learning rate and clip norm must be > 0");
        }
    }

    public static SurrogateConfig defaults() {
        return new SurrogateConfig(32, 64, 1e-3, 12, 4096, 5.0, 3, 7);
    }
}

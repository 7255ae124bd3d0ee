package dev.basalt.explain;

import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.DecodeException;
import dev.basalt.decoder.EncodeException;
import dev.basalt.decoder.EncoderRequest;
import dev.basalt.decoder.Instruction;
import dev.basalt.decoder.Register;
import dev.basalt.decoder.RegisterClass;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Draws random perturbations of one block that keep a given set of anchored features (DESIGN.md §8).
 *
 * <p>Each instruction that no anchored feature protects is deleted with probability
 * {@link Config#deleteProbability()} (never when {@code num_insts} is anchored), otherwise kept verbatim with
 * probability {@link Config#keepProbability()}, otherwise perturbed: its mnemonic swapped for another with
 * the same operand signature ({@link Config#swapProbability()}) and each register or memory operand changed
 * ({@link Config#operandProbability()}) — a register to another of its class and width, never the stack
 * pointer; an address by its base, index, scale or displacement. A perturbed instruction is re-encoded with
 * Zydis; a change Zydis cannot encode is redrawn (up to {@link Config#attempts()} times, then the instruction
 * stays as it was).
 *
 * <p>Anchored {@code inst_i}: instruction i is neither deleted nor swapped (its operands may change, as in
 * COMET). Anchored {@code dep(i,j,T)}: i and j are neither deleted nor swapped (as COMET, which locks both
 * opcodes), and the whole perturbation is redrawn until every anchored dependency still exists — rejection, so
 * the perturbations are drawn from the unconstrained distribution conditioned on the anchor, and a WAR anchor
 * does not silently keep the RAW dependency between the same two instructions too. Immutable and thread-safe; randomness comes only from the caller's generator (seeded).
 */
public final class Perturber {

    /**
     * Perturbation probabilities (COMET's: about a third of the free instructions deleted, a third kept, a third
     * changed).
     *
     * @param deleteProbability  chance a free instruction is deleted
     * @param keepProbability    chance a surviving free instruction is kept verbatim
     * @param swapProbability    chance a changed instruction gets another mnemonic
     * @param operandProbability chance each register/memory operand of a changed instruction changes
     * @param attempts           redraws of one instruction's change (and of a whole perturbation) before giving up
     */
    public record Config(double deleteProbability, double keepProbability, double swapProbability,
                         double operandProbability, int attempts) {
        public Config {
            for (double p : new double[] {deleteProbability, keepProbability, swapProbability, operandProbability}) {
                if (!(p >= 0 && p <= 1)) {
                    throw new IllegalArgumentException("probabilities must be in [0, 1], got " + p);
                }
            }
            if (attempts < 1) {
                throw new IllegalArgumentException("attempts must be >= 1, got " + attempts);
            }
        }

        public static Config defaults() {
            return new Config(0.34, 0.5, 0.5, 0.5, 50);
        }
    }

    private static final int[] SCALES = {1, 2, 4, 8};

    private final BlockFeatures features;
    private final BasicBlock block;
    private final Config config;
    private final List<List<String>> swaps = new ArrayList<>();
    private final List<EncoderRequest> requests = new ArrayList<>();
    private final Map<String, List<Register>> renames;
    private final List<Register> addressRegisters;
    private final MnemonicPool pool;

    public Perturber(BlockFeatures features, MnemonicPool pool, Config config) {
        this.features = features;
        this.pool = pool;
        this.block = features.block();
        this.config = config;
        for (Instruction insn : block.instructions()) {
            EncoderRequest r;
            try {
                r = EncoderRequest.of(insn);
                r.encode(); // only instructions Zydis can re-create are changed (this throws for the others)
            } catch (EncodeException | DecodeException e) {
                r = null;
            }
            requests.add(r);
            swaps.add(r == null ? List.of() : pool.alternatives(insn));
        }
        renames = new HashMap<>();
        for (Register reg : Register.all()) {
            if (renamable(reg)) {
                renames.computeIfAbsent(key(reg), k -> new ArrayList<>()).add(reg);
            }
        }
        addressRegisters = renames.getOrDefault(RegisterClass.GPR64 + "/64", List.of());
    }

    private static boolean renamable(Register reg) {
        if (!reg.isPresent() || reg.enclosingName().equals("rsp") || reg.enclosingName().equals("rip")) {
            return false;
        }
        RegisterClass c = reg.registerClass();
        return c.isGpr() || c.isVector() || c == RegisterClass.MASK;
    }

    private static String key(Register reg) {
        return reg.registerClass() + "/" + reg.widthBits();
    }

    /** The block's features. */
    public BlockFeatures features() {
        return features;
    }

    /** Draws one perturbation keeping every feature of {@code anchor}. */
    public Perturbation draw(Set<Feature> anchor, SplittableRandom random) {
        BitSet required = features.bits(anchor);
        boolean keepCount = anchor.contains(new Feature.NumInsts());
        int n = block.size();
        boolean[] noDelete = new boolean[n];
        boolean[] noSwap = new boolean[n];
        for (Feature f : anchor) {
            if (f instanceof Feature.Inst inst) {
                noDelete[inst.index()] = true;
                noSwap[inst.index()] = true;
            } else if (f instanceof Feature.Dep dep) {
                for (int i : new int[] {dep.producer(), dep.consumer()}) {
                    noDelete[i] = true;
                    noSwap[i] = true;
                }
            }
        }
        for (int attempt = 0; attempt < config.attempts(); attempt++) {
            Perturbation p = once(random, keepCount, noDelete, noSwap);
            if (p != null && required.isEmpty()) {
                return p; // nothing to check (the coverage sample draws 10,000 of these per explanation)
            }
            if (p != null) {
                BitSet kept = features.preserved(p);
                BitSet missing = (BitSet) required.clone();
                missing.andNot(kept);
                if (missing.isEmpty()) {
                    return p;
                }
            }
        }
        return identity(); // nothing else kept the anchor: the block itself always does
    }

    /** The unperturbed block as a perturbation. */
    public Perturbation identity() {
        int[] origin = new int[block.size()];
        for (int i = 0; i < origin.length; i++) {
            origin[i] = i;
        }
        return new Perturbation(block, origin, new boolean[block.size()]);
    }

    private Perturbation once(SplittableRandom random, boolean keepCount, boolean[] noDelete, boolean[] noSwap) {
        int n = block.size();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(block.length() + 16);
        int[] origin = new int[n];
        boolean[] changed = new boolean[n];
        int kept = 0;
        for (int i = 0; i < n; i++) {
            Instruction insn = block.instruction(i);
            if (!noDelete[i] && !keepCount && random.nextDouble() < config.deleteProbability()) {
                continue;
            }
            byte[] code = null;
            if (requests.get(i) != null && random.nextDouble() >= config.keepProbability()) {
                code = change(i, noSwap[i], random);
            }
            origin[kept] = i;
            changed[kept] = code != null;
            bytes.writeBytes(code != null ? code : insn.bytes());
            kept++;
        }
        if (kept == 0) {
            return null;
        }
        try {
            BasicBlock b = BasicBlock.fromBytes(bytes.toByteArray());
            if (b.size() != kept) {
                return null;
            }
            return new Perturbation(b, java.util.Arrays.copyOf(origin, kept), java.util.Arrays.copyOf(changed, kept));
        } catch (DecodeException e) {
            return null;
        }
    }

    /** A changed encoding of instruction {@code i}, or null when no drawn change encodes (or none was drawn). */
    private byte[] change(int i, boolean noSwap, SplittableRandom random) {
        EncoderRequest original = requests.get(i);
        List<String> alternatives = swaps.get(i);
        for (int attempt = 0; attempt < Math.min(config.attempts(), 8); attempt++) {
            EncoderRequest r = original;
            if (!noSwap && !alternatives.isEmpty() && random.nextDouble() < config.swapProbability()) {
                r = r.withMnemonic(alternatives.get(random.nextInt(alternatives.size())));
            }
            for (int k = 0; k < r.operandCount(); k++) {
                if (random.nextDouble() >= config.operandProbability()) {
                    continue;
                }
                r = switch (r.kind(k)) {
                    case REGISTER -> rename(r, k, random);
                    case MEMORY -> readdress(r, k, random);
                    default -> r;
                };
            }
            if (r.equals(original)) {
                return null; // nothing drawn: the instruction stays verbatim
            }
            try {
                byte[] code = r.encode();
                BasicBlock check = BasicBlock.fromBytes(code);
                // Only a fixed point of decode → encode is kept (xchg rax, rax encodes as 48 90, which decodes
                // as a nop that re-encodes as 90), so a perturbed block always re-encodes to its own bytes.
                if (check.size() == 1 && pool.admits(check.instruction(0))
                        && java.util.Arrays.equals(code, EncoderRequest.of(check.instruction(0)).encode())) {
                    return code;
                }
            } catch (EncodeException | DecodeException e) {
                // redraw
            }
        }
        return null;
    }

    private EncoderRequest rename(EncoderRequest r, int k, SplittableRandom random) {
        Register reg = r.register(k);
        if (!renamable(reg)) {
            return r;
        }
        List<Register> options = renames.getOrDefault(key(reg), List.of());
        if (options.size() < 2) {
            return r;
        }
        Register to = options.get(random.nextInt(options.size()));
        return to.equals(reg) ? r : r.withRegister(k, to);
    }

    private EncoderRequest readdress(EncoderRequest r, int k, SplittableRandom random) {
        Register base = r.base(k);
        Register index = r.index(k);
        int scale = r.scale(k);
        long disp = r.displacement(k);
        boolean ripRelative = base.enclosingName().equals("rip");
        int component = random.nextInt(4);
        if (component == 0 && base.isPresent() && renamable(base) && !addressRegisters.isEmpty()
                && base.widthBits() == 64) {
            base = addressRegisters.get(random.nextInt(addressRegisters.size()));
        } else if (component == 1 && index.isPresent() && renamable(index) && index.registerClass().isGpr()
                && index.widthBits() == 64 && !addressRegisters.isEmpty()) {
            index = addressRegisters.get(random.nextInt(addressRegisters.size()));
        } else if (component == 2 && index.isPresent()) {
            scale = SCALES[random.nextInt(SCALES.length)];
        } else if (!ripRelative) {
            disp = 8L * (random.nextInt(17) - 8);
        } else {
            return r;
        }
        return r.withAddress(k, base, index, scale, disp);
    }
}

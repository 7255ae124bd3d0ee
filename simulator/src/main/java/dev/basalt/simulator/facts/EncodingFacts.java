package dev.basalt.simulator.facts;

import dev.basalt.simulator.harness.BhiveMemory;
import dev.basalt.simulator.params.Fences;
import dev.basalt.decoder.Decoding;
import dev.basalt.decoder.Idiom;
import dev.basalt.decoder.Instruction;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What an instruction's bytes alone say, the same on every CPU: the operand facts the machine asks for and the
 * parts of its {@link InstructionShape} no table decides. An estimator's simulators (one per CPU) share one
 * {@link Cache} of them, so a second CPU computes only what its table changes ({@link InstructionFacts}): these are
 * most of the work of a new encoding.
 *
 * @param memory             what BHive's harness values follow through it ({@link BhiveMemory.Step})
 * @param unmodelled         why no estimator prices it ({@link dev.basalt.core.UnmodelledInstructions}), or null
 * @param slowLea            a three-component {@code lea} ({@link InstructionShape#slowLea})
 * @param loads              memory operands read ({@link InstructionShape#loads})
 * @param stores             whether it writes memory
 * @param locked             a locked read-modify-write ({@link InstructionShape#locked})
 * @param stackOp            push, pop, call or ret: rsp updated by the stack engine
 * @param usesStackPointer   whether it names rsp otherwise (operand or address)
 * @param writesStackPointer whether it writes rsp as an operand
 * @param fence              which fence it is ({@link Fences#LOAD_FENCE}, {@link Fences#MFENCE}, {@link Fences#STORE_FENCE}), or 0
 * @param opcodeOffset       bytes before the opcode ({@link InstructionShape#opcodeOffset})
 * @param lengthChanging     a length-changing prefix ({@link InstructionShape#lengthChanging})
 * @param moveRegisterFile   an eliminable register move's file ({@link InstructionShape#moveRegisterFile})
 * @param noPort             a zero idiom or a {@code nop}: no port
 * @param readsMemory        whether a memory operand is read, hidden ones included (micro-fusion)
 * @param writesMemory       whether a memory operand is written, hidden ones included (micro-fusion)
 * @param indexedMemory      whether its last memory operand has an index ({@link InstructionShape#indexedMemory})
 * @param destructive        a register-and-memory destructive form ({@link InstructionShape#destructive})
 * @param popRsp             {@code pop rsp} or {@code pop r12} ({@link InstructionShape#popRsp})
 * @param immediateField     whether its encoding holds an immediate or a displacement ({@link ImmediateFields})
 * @param ripComplex         a RIP-relative memory operand in a store, a {@code lea} or a form with an immediate
 *                           ({@link CoreParams#ripComplexDecode})
 */
public record EncodingFacts(BhiveMemory.Step memory, String unmodelled, boolean slowLea, int loads, boolean stores,
                     boolean locked, boolean stackOp, boolean usesStackPointer, boolean writesStackPointer, int fence,
                     int opcodeOffset, boolean lengthChanging, int moveRegisterFile, boolean noPort,
                     boolean readsMemory, boolean writesMemory, boolean indexedMemory, boolean destructive,
                     boolean popRsp, boolean immediateField, boolean ripComplex) {

    /** The facts of {@code insn}, by {@link InstructionShape}'s rules (each one method). */
    public static EncodingFacts of(Instruction insn) {
        String mnemonic = insn.mnemonic();
        int loads = InstructionShape.loads(insn);
        boolean stores = InstructionShape.stores(insn);
        byte[] bytes = insn.bytes(); // a copy: taken once
        return new EncodingFacts(BhiveMemory.Step.of(insn),
                dev.basalt.core.UnmodelledInstructions.reason(insn).orElse(null), InstructionShape.slowLea(insn),
                loads, stores, InstructionShape.locked(insn), Sources.isStackOp(insn),
                InstructionShape.usesStackPointer(insn), InstructionShape.writesStackPointer(insn), fence(mnemonic),
                InstructionShape.opcodeOffset(bytes), InstructionShape.lengthChanging(insn, bytes),
                InstructionShape.moveRegisterFile(insn), insn.idiom() == Idiom.ZERO || mnemonic.equals("nop"),
                loads > 0, stores, InstructionShape.indexedMemory(insn), InstructionShape.destructive(insn),
                InstructionShape.popRsp(insn), ImmediateFields.has(insn), InstructionShape.ripComplex(insn, stores));
    }

    private static int fence(String mnemonic) {
        return switch (mnemonic) {
            case "lfence", "cpuid" -> Fences.LOAD_FENCE;
            case "mfence" -> Fences.MFENCE;
            case "sfence" -> Fences.STORE_FENCE;
            default -> 0;
        };
    }

    /**
     * The facts by decoding, for any number of simulators. Bounded as {@link InstructionFacts.Cache}: past its
     * limit the map starts again (facts are recomputed, never different).
     */
    public static final class Cache {
        private final Map<Decoding, EncodingFacts> map;
        private final int limit;

        public Cache() {
            this(InstructionFacts.Cache.LIMIT);
        }

        public Cache(int limit) {
            this.limit = limit;
            this.map = new ConcurrentHashMap<>(Math.min(limit, 1 << 15)); // as InstructionFacts.Cache's maps
        }

        /** How many encodings' facts it holds. */
        public int size() {
            return map.size();
        }

        EncodingFacts get(Instruction insn) {
            EncodingFacts f = map.get(insn.decoding());
            if (f == null) {
                f = of(insn);
                if (map.size() >= limit) {
                    map.clear();
                }
                map.put(insn.decoding(), f);
            }
            return f;
        }
    }
}

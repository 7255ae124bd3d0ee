package dev.basalt.decoder;

import java.util.List;
import java.util.Set;

/** Recognises dependency-breaking idioms (see {@link Idiom}). */
final class Idioms {

    private Idioms() {
    }

    // Intel 64 and IA-32 Optimization Reference Manual, "Clearing Registers and Dependency Breaking Idioms".
    private static final Set<String> ZERO = Set.of(
            "xor", "sub", "pxor", "xorps", "xorpd", "vpxor", "vxorps", "vxorpd", "vpxord", "vpxorq",
            "psubb", "psubw", "psubd", "psubq", "vpsubb", "vpsubw", "vpsubd", "vpsubq",
            "pcmpgtb", "pcmpgtw", "pcmpgtd", "pcmpgtq", "vpcmpgtb", "vpcmpgtw", "vpcmpgtd", "vpcmpgtq");
    private static final Set<String> ONES = Set.of(
            "pcmpeqb", "pcmpeqw", "pcmpeqd", "pcmpeqq", "vpcmpeqb", "vpcmpeqw", "vpcmpeqd", "vpcmpeqq");

    /**
     * An idiom needs every explicit source to be the same register, no memory operand and no write mask
     * (merge-masking keeps old destination lanes, so the result is not input-independent); the
     * compare-into-mask EVEX forms ({@code vpcmpeqd k1, zmm0, zmm0}) do not qualify either.
     */
    static Idiom classify(String mnemonic, List<Operand> operands) {
        boolean zero = ZERO.contains(mnemonic);
        if (!zero && !ONES.contains(mnemonic)) {
            return Idiom.NONE;
        }
        Register source = null;
        int sources = 0;
        for (Operand o : operands) {
            if (o.visibility() == Visibility.HIDDEN) {
                continue;
            }
            if (!(o instanceof Operand.RegisterOperand r)) {
                return Idiom.NONE;
            }
            if (r.isMask() || r.register().registerClass() == RegisterClass.MASK) {
                return Idiom.NONE;
            }
            if (r.action().readsOldValue()) {
                if (source != null && source.id() != r.register().id()) {
                    return Idiom.NONE;
                }
                source = r.register();
                sources++;
            }
        }
        if (sources < 2) {
            return Idiom.NONE;
        }
        return zero ? Idiom.ZERO : Idiom.ONES;
    }
}

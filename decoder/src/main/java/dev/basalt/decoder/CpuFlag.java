package dev.basalt.decoder;

/** RFLAGS bits, with their bit position (which is also Zydis' {@code ZYDIS_CPUFLAG_*} mask bit). */
public enum CpuFlag {
    CF(0), PF(2), AF(4), ZF(6), SF(7), TF(8), IF(9), DF(10), OF(11), IOPL(12), NT(14), RF(16), VM(17), AC(18),
    VIF(19), VIP(20), ID(21);

    private final int bit;

    CpuFlag(int bit) {
        this.bit = bit;
    }

    /** This flag's mask in RFLAGS. */
    public int mask() {
        return 1 << bit;
    }
}

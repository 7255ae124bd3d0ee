package dev.basalt.decoder;

/**
 * One memory operand of one instruction, with what the alias checks of {@link DependencyGraph} need. Accesses
 * compare by their address fields; the {@link Resource} (named by the address text) is built only when an
 * edge is materialised or a caller asks.
 */
final class MemoryAccess {

    final Operand.MemoryOperand operand;
    final MemoryPolicy policy;
    final boolean ripRelative;
    /** For RIP-relative operands, the address as an offset from the block start; else 0. */
    final long ripTarget;
    /** Hash of the address expression (0 for all-alias, where every access is one resource). */
    final int expressionHash;
    // The address expression as plain values, so that alias checks need not chase the operand's references.
    private final int baseId;
    private final int indexId;
    private final int base;
    private final int index;
    private final int scale;
    private final int segment;
    private final long displacement;
    /** Built on first use; a benign race (every thread builds an equal, immutable value). */
    private Resource resource;

    /** @param end offset of the end of the instruction (RIP-relative addresses count from there) */
    MemoryAccess(long end, Operand.MemoryOperand operand, MemoryPolicy policy) {
        this.operand = operand;
        this.policy = policy;
        this.ripRelative = operand.base().registerClass() == RegisterClass.IP;
        this.ripTarget = ripRelative ? end + operand.displacement() : 0;
        this.baseId = operand.base().enclosingId();
        this.indexId = operand.index().enclosingId();
        this.base = operand.base().id();
        this.index = operand.index().id();
        this.scale = operand.scale();
        this.segment = segmentOverride(operand).id();
        this.displacement = operand.displacement();
        this.expressionHash = policy == MemoryPolicy.ALL_ALIAS ? 0 : ripRelative
                ? Long.hashCode(ripTarget) * 31 + segmentOverride(operand).id()
                : ((Long.hashCode(operand.displacement()) * 31 + operand.base().id()) * 31 + operand.index().id())
                        * 31 + operand.scale() * 7 + segmentOverride(operand).id();
    }

    /**
     * This access as made by {@code insn}, an instruction with the same bytes as the one it was built for:
     * itself unless RIP-relative (whose target depends on where the instruction is).
     */
    MemoryAccess at(Instruction insn) {
        return ripRelative ? new MemoryAccess(insn.offset() + insn.length(), operand, policy) : this;
    }

    /** Enclosing-register ids of the base and index (0 when absent). */
    int baseId() {
        return baseId;
    }

    int indexId() {
        return indexId;
    }

    /** Same address expression (ignoring whether the registers changed in between). */
    boolean sameExpression(MemoryAccess o) {
        if (ripRelative || o.ripRelative) {
            return ripRelative && o.ripRelative && ripTarget == o.ripTarget && segment == o.segment;
        }
        return displacement == o.displacement && base == o.base && index == o.index && scale == o.scale
                && segment == o.segment;
    }

    Resource resource() {
        Resource r = resource;
        if (r == null) {
            r = build();
            resource = r;
        }
        return r;
    }

    private Resource build() {
        if (policy == MemoryPolicy.ALL_ALIAS) {
            return Resource.MEMORY;
        }
        if (ripRelative) {
            Register seg = segmentOverride(operand);
            String prefix = seg.isPresent() ? seg.name() + ":" : "";
            return new Resource(Resource.Kind.MEMORY, prefix + "[block+0x" + Long.toHexString(ripTarget) + "]");
        }
        return new Resource(Resource.Kind.MEMORY, operand.addressText());
    }

    /** fs or gs when the operand uses one (they change the address in 64-bit mode); otherwise NONE. */
    private static Register segmentOverride(Operand.MemoryOperand m) {
        return RegisterResources.isFsOrGs(m.segment().id()) ? m.segment() : Register.NONE;
    }
}

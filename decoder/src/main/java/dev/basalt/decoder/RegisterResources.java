package dev.basalt.decoder;

import java.util.List;

/** One shared {@link Resource} per enclosing register, built from the register table on first use. */
final class RegisterResources {

    private RegisterResources() {
    }

    private static final class Table {
        static final Resource[] BY_ID;
        static final boolean[] TRACKED;
        static final boolean[] FS_GS;

        static {
            List<Register> registers = Zydis.get().registers();
            BY_ID = new Resource[registers.size()];
            TRACKED = new boolean[registers.size()];
            FS_GS = new boolean[registers.size()];
            for (Register r : registers) {
                BY_ID[r.id()] = new Resource(Resource.Kind.REGISTER, r.enclosingName());
                RegisterClass c = r.registerClass();
                TRACKED[r.id()] = r.isPresent() && c != RegisterClass.FLAGS && c != RegisterClass.IP
                        && !r.name().equals("x87status") && !r.name().equals("x87tag");
                FS_GS[r.id()] = r.name().equals("fs") || r.name().equals("gs");
            }
        }
    }

    /**
     * Whether the dependency graph tracks this register: flags go through the flag tables instead; RIP
     * changes with every instruction anyway; the x87 status and tag words are bookkeeping that nearly every
     * x87 instruction writes, and tracking them would chain all x87 code into one false WAW sequence.
     */
    static boolean tracked(int registerId) {
        return Table.TRACKED[registerId];
    }

    /** True for the fs and gs segment registers, the only ones that change an address in 64-bit mode. */
    static boolean isFsOrGs(int registerId) {
        return Table.FS_GS[registerId];
    }

    /** The resource of the register with this Zydis id (the id of an enclosing register). */
    static Resource of(int registerId) {
        return Table.BY_ID[registerId];
    }
}

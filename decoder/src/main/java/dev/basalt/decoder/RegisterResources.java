package dev.basalt.decoder;

import java.util.List;

/** One shared {@link Resource} per enclosing register, built from the register table on first use. */
final class RegisterResources {

    private RegisterResources() {
    }

    private static final class Table {
        static final Resource[] BY_ID;

        static {
            List<Register> registers = Zydis.get().registers();
            BY_ID = new Resource[registers.size()];
            for (Register r : registers) {
                BY_ID[r.id()] = new Resource(Resource.Kind.REGISTER, r.enclosingName());
            }
        }
    }

    /** The resource of the register with this Zydis id (the id of an enclosing register). */
    static Resource of(int registerId) {
        return Table.BY_ID[registerId];
    }
}

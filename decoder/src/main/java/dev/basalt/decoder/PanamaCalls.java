package dev.basalt.decoder;

import jdk.incubator.foreign.CLinker;
import jdk.incubator.foreign.FunctionDescriptor;
import jdk.incubator.foreign.MemoryAddress;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/**
 * {@link NativeCalls} through the Java 17 incubating foreign-function API. Only loaded (reflectively, by
 * {@link Zydis}) when the module {@code jdk.incubator.foreign} is in the boot layer; linking throws when native
 * access is not enabled, and Zydis then keeps JNA. The function address comes from the library JNA loaded, so
 * both bindings call the same code.
 */
final class PanamaCalls implements NativeCalls {

    private final MethodHandle decodeFull;

    PanamaCalls(long decodeFullAddress) {
        // ZyanStatus is a uint32; pointers and ZyanUSize are 64-bit, passed as C longs (same SysV registers).
        decodeFull = CLinker.getInstance().downcallHandle(MemoryAddress.ofLong(decodeFullAddress),
                MethodType.methodType(int.class, long.class, long.class, long.class, long.class, long.class),
                FunctionDescriptor.of(CLinker.C_INT, CLinker.C_LONG, CLinker.C_LONG, CLinker.C_LONG, CLinker.C_LONG,
                        CLinker.C_LONG));
    }

    @Override
    public int decodeFull(long decoder, long buffer, long length, long instruction, long operands) {
        try {
            return (int) decodeFull.invokeExact(decoder, buffer, length, instruction, operands);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ZydisDecoderDecodeFull failed", t);
        }
    }

    @Override
    public String name() {
        return "panama";
    }
}

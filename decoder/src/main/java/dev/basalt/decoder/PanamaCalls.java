package dev.basalt.decoder;

import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import jdk.incubator.foreign.CLinker;
import jdk.incubator.foreign.FunctionDescriptor;
import jdk.incubator.foreign.MemoryAddress;
import jdk.incubator.foreign.MemorySegment;
import jdk.incubator.foreign.ResourceScope;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodType;

/**
 * {@link NativeCalls} through the Java 17 incubating foreign-function API. Only loaded (reflectively, by
 * {@link Zydis}) when the module {@code jdk.incubator.foreign} is in the boot layer; class initialisation throws
 * when native access is not enabled, and Zydis then keeps JNA. The function address comes from the library JNA
 * loads, so both bindings call the same code.
 */
final class PanamaCalls implements NativeCalls {

    /** A constant, so that the JIT links the call directly instead of through the generic invoker. */
    private static final MethodHandle DECODE_FULL = CLinker.getInstance().downcallHandle(
            MemoryAddress.ofLong(Pointer.nativeValue(
                    NativeLibrary.getInstance(Zydis.libraryPath()).getFunction("ZydisDecoderDecodeFull"))),
            MethodType.methodType(int.class, long.class, long.class, long.class, long.class, long.class),
            // ZyanStatus is a uint32; pointers and ZyanUSize are 64-bit, passed as C longs (same SysV registers).
            FunctionDescriptor.of(CLinker.C_INT, CLinker.C_LONG, CLinker.C_LONG, CLinker.C_LONG, CLinker.C_LONG,
                    CLinker.C_LONG));

    @Override
    public int decodeFull(long decoder, long buffer, long length, long instruction, long operands) {
        try {
            return (int) DECODE_FULL.invokeExact(decoder, buffer, length, instruction, operands);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ZydisDecoderDecodeFull failed", t);
        }
    }

    @Override
    public void copyIn(byte[] bytes, int length, long address, Memory memory) {
        if (length > memory.size()) {
            throw new IndexOutOfBoundsException(length + " bytes into a " + memory.size() + "-byte buffer");
        }
        MemoryAddress.ofLong(address).asSegment(length, ResourceScope.globalScope())
                .copyFrom(MemorySegment.ofArray(bytes).asSlice(0, length));
    }

    @Override
    public String name() {
        return "panama";
    }
}

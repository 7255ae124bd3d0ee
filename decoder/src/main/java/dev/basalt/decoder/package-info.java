/**
 * x86-64 machine code to instructions and dependency graphs, through the Zydis 4.0 disassembler.
 *
 * <p>Start with {@link dev.basalt.decoder.BasicBlock#fromHex(String)}; the model is
 * {@link dev.basalt.decoder.Instruction}, {@link dev.basalt.decoder.Operand} and
 * {@link dev.basalt.decoder.DependencyGraph}. Zydis is loaded on first use from {@code libZydis.so.4.0}
 * (Debian package {@code libzydis4.0}) or from the path in {@code BASALT_ZYDIS_LIB} /
 * {@code -Dbasalt.zydis.lib}.
 */
package dev.basalt.decoder;

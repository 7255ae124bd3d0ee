package dev.basalt.decoder;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compiler's assembly comes out as its assembler writes it: gcc -S of a C file (loops, a jump table, TLS, string
 * and AVX code, cold paths in another section), assembled by gas and by {@link Assembly}, gives every function
 * the same instructions at the same places — branch widths and displacements included, since sections and
 * alignment directives place the code as gas does, and the padding is gas' NOPs — except the 32 bits left to a
 * relocation, where gas writes zeros and we a stand-in of the same length.
 */
class GasAgreementTest {

    @ParameterizedTest(name = "gcc {0}, {1}")
    @CsvSource({"-O2, att", "-O2, intel", "-O3 -march=haswell, att", "-O3 -march=haswell, intel",
            "-Os -fPIC, att", "-Os -fPIC, intel", "-O2 -march=skylake-avx512, intel"})
    void everyInstructionHasGasBytes(String options, String syntax, @TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(TestBlocks.onPath("gcc") && TestBlocks.onPath("as"), "gcc and as (binutils) are needed");
        Path source = dir.resolve("gas-agreement.c");
        try (InputStream in = GasAgreementTest.class.getResourceAsStream("gas-agreement.c")) {
            Files.copy(in, source);
        }
        Path asm = dir.resolve("t.s");
        List<String> gcc = new ArrayList<>(List.of("gcc", "-S", "-o", asm.toString()));
        gcc.addAll(List.of(options.split(" ")));
        if (syntax.equals("intel")) {
            gcc.add("-masm=intel");
        }
        gcc.add(source.toString());
        run(gcc);
        Path object = dir.resolve("t.o");
        run(List.of("as", "-o", object.toString(), asm.toString()));

        // each function as gas put it in the object file, alignment padding included, against ours
        Map<String, ElfCode.Function> gasFunctions = new HashMap<>();
        for (ElfCode.Function f : ElfCode.functions(object).functions()) {
            gasFunctions.put(f.name(), f);
        }
        String text = Files.readString(asm);
        List<Assembly.Function> ours = Assembly.assemble(text, Assembly.Syntax.detect(text)).functions();
        assertEquals(gasFunctions.keySet(), ours.stream().map(Assembly.Function::name)
                .collect(java.util.stream.Collectors.toSet()), "functions");
        int instructions = 0;
        List<String> differ = new ArrayList<>();
        for (Assembly.Function f : ours) {
            ElfCode.Function g = gasFunctions.get(f.name());
            assertEquals(g.address(), f.address(), f.name() + "'s address in its section");
            List<String> gas = hexes(g.bytes());
            List<String> we = hexes(f.bytes());
            assertEquals(gas.size(), we.size(), f.name() + ": instructions");
            for (int k = 0; k < gas.size(); k++) {
                instructions++;
                if (!sameButRelocation(gas.get(k), we.get(k))) {
                    differ.add(f.name() + ": gas " + gas.get(k) + ", we " + we.get(k));
                }
            }
        }
        System.err.printf("gas agreement (gcc %s, %s): %d of %d instructions as gas writes them%n", options, syntax,
                instructions - differ.size(), instructions);
        assertTrue(differ.isEmpty(), differ.toString());
        assertTrue(instructions > 150, "a few hundred instructions: " + instructions);
    }

    private static List<String> hexes(byte[] code) {
        List<String> out = new ArrayList<>();
        CodeScan.linear(code, 0, code.length, i -> out.add(i.hex()));
        return out;
    }

    /** Equal, or equal but within four bytes gas left as zeros for a relocation. */
    private static boolean sameButRelocation(String gas, String ours) {
        if (gas.length() != ours.length()) {
            return false;
        }
        int first = -1;
        int last = -1;
        for (int k = 0; k < gas.length(); k += 2) {
            if (!gas.regionMatches(k, ours, k, 2)) {
                first = first < 0 ? k : first;
                last = k;
            }
        }
        if (first < 0) {
            return true;
        }
        for (int start = Math.max(0, last - 6); start <= first && start + 8 <= gas.length(); start += 2) {
            if (gas.startsWith("00000000", start)) {
                return true;
            }
        }
        return false;
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", command));
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + output);
    }
}

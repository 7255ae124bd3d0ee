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
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A compiler's assembly comes out as its assembler writes it: gcc -S of a C file (loops, a jump table, TLS, string
 * and AVX code, cold paths in another section), assembled by gas ({@code as -al} lists each line's bytes) and by
 * {@link Assembly}, gives the same bytes for every instruction — branch widths and displacements included, since
 * sections and alignment directives place the code as gas does — except the 32 bits left to a relocation, where
 * gas writes zeros and we a stand-in of the same length.
 */
class GasAgreementTest {

    private static final Pattern LISTED = Pattern.compile("^\\s*(\\d+)\\s+[0-9a-f]{4}\\s+([0-9A-F]+)\\s*(?:\\t(.*))?$");
    private static final Pattern CONTINUED = Pattern.compile("^\\s*(\\d+)\\s+([0-9A-F]+)\\s*$");
    private static final Set<String> PREFIX_LINES = Set.of("rex64", "data16", "lock", "rep", "notrack", "cs", "ds");

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
        Path listing = dir.resolve("t.lst");
        run(List.of("as", "-al=" + listing, "-o", dir.resolve("t.o").toString(), asm.toString()));

        List<String> gas = gasInstructions(listing);
        List<String> ours = new ArrayList<>();
        for (Assembly.Block b : Assembly.parse(Files.readString(asm), Assembly.Syntax.detect(Files.readString(asm)))) {
            for (Instruction i : BasicBlock.fromBytes(b.bytes()).instructions()) {
                ours.add(i.hex());
            }
        }
        assertEquals(gas.size(), ours.size(), "instructions");
        List<String> differ = new ArrayList<>();
        for (int k = 0; k < gas.size(); k++) {
            if (!sameButRelocation(gas.get(k), ours.get(k))) {
                differ.add("gas " + gas.get(k) + ", we " + ours.get(k));
            }
        }
        System.err.printf("gas agreement (gcc %s, %s): %d of %d instructions as gas writes them%n", options, syntax,
                gas.size() - differ.size(), gas.size());
        assertTrue(differ.isEmpty(), differ.toString());
        assertTrue(gas.size() > 150, "a few hundred instructions: " + gas.size());
    }

    /** The bytes gas listed for each instruction line, with a prefix on a line of its own joined to the next. */
    private static List<String> gasInstructions(Path listing) throws IOException {
        List<String> out = new ArrayList<>();
        List<String[]> lines = new ArrayList<>();  // {line number, hex, source}
        for (String line : Files.readAllLines(listing)) {
            Matcher m = LISTED.matcher(line);
            Matcher c = CONTINUED.matcher(line);
            if (m.matches()) {
                lines.add(new String[] {m.group(1), m.group(2).toLowerCase(),
                        m.group(3) == null ? "" : m.group(3).strip()});
            } else if (c.matches() && !lines.isEmpty() && lines.get(lines.size() - 1)[0].equals(c.group(1))) {
                lines.get(lines.size() - 1)[1] += c.group(2).toLowerCase();
            }
        }
        String prefix = "";
        for (String[] l : lines) {
            if (l[2].startsWith(".")) {
                continue;  // alignment padding and data
            }
            if (PREFIX_LINES.contains(l[2])) {
                prefix += l[1];
                continue;
            }
            out.add(prefix + l[1]);
            prefix = "";
        }
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

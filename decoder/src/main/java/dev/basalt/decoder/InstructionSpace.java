package dev.basalt.decoder;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every instruction form the decoder produces, found by decoding a sweep of the 64-bit encoding space: each
 * combination of the prefixes that change a form (LOCK, operand size {@code 66}, REP/REPNE {@code F3}/{@code F2},
 * REX.W), opcode map (one byte, {@code 0F}, {@code 0F 38}, {@code 0F 3A}) and opcode, and the VEX maps with each
 * vector length, W bit and implied prefix; for each, the ModRM bytes that can change a form (every {@code reg}
 * field, with a memory operand and with each register {@code rm}). Displacements and immediates are 1; which
 * registers appear never changes a form, so one register per kind is enough.
 *
 * <p>EVEX (AVX-512), XOP and 3DNow! encodings are left out: none of the CPUs with tables has them, and the
 * decoder still names their forms when a block holds them. The sweep decodes about 2.7 million candidates, a
 * few seconds.
 */
public final class InstructionSpace {

    private InstructionSpace() {
    }

    /**
     * One form and the shortest encoding the sweep found for it (the first of that length, in sweep order).
     *
     * @param isaExtension Zydis' ISA extension of the instance ({@code AVX2}, {@code BMI1}, ...)
     */
    public record Form(String form, Instruction instance, String isaExtension) {
    }

    private static final int[][] MAPS = {{}, {0x0F}, {0x0F, 0x38}, {0x0F, 0x3A}};

    /** The forms of the sweep, in form-key order. */
    public static List<Form> sweep() {
        Zydis z = Zydis.get();
        Map<String, Decoding> found = new HashMap<>();
        byte[] candidate = new byte[15];
        int[] modrms = modrms();
        for (int lock = 0; lock < 2; lock++) {
            for (int opsize = 0; opsize < 2; opsize++) {
                for (int rep = 0; rep < 3; rep++) {
                    for (int rexw = 0; rexw < 2; rexw++) {
                        List<Integer> prefix = new ArrayList<>();
                        if (lock == 1) {
                            prefix.add(0xF0);
                        }
                        if (opsize == 1) {
                            prefix.add(0x66);
                        }
                        if (rep > 0) {
                            prefix.add(rep == 1 ? 0xF3 : 0xF2);
                        }
                        if (rexw == 1) {
                            prefix.add(0x48);
                        }
                        for (int[] map : MAPS) {
                            List<Integer> head = new ArrayList<>(prefix);
                            for (int b : map) {
                                head.add(b);
                            }
                            sweepOpcodes(z, head, modrms, candidate, found);
                        }
                    }
                }
            }
        }
        for (int mmmmm = 1; mmmmm <= 3; mmmmm++) {
            for (int w = 0; w < 2; w++) {
                for (int l = 0; l < 2; l++) {
                    for (int pp = 0; pp < 4; pp++) {
                        // Three-byte VEX: R, X, B inverted (all set: no extension), vvvv inverted (all set: xmm0).
                        sweepOpcodes(z, List.of(0xC4, 0xE0 | mmmmm, (w << 7) | 0x78 | (l << 2) | pp), modrms,
                                candidate, found);
                    }
                }
            }
        }
        return found.values().stream()
                .map(d -> new Form(d.form(), new Instruction(0, d), d.isaExtension()))
                .sorted(java.util.Comparator.comparing(Form::form))
                .toList();
    }

    /**
     * Every reg field with a memory rm (and with a SIB byte), and with each register rm; the register rm that
     * differs from reg and from VEX's vvvv (register 0) comes first, so that an instance is not a zero idiom
     * ({@code sub rax, rax}) priced as one.
     */
    private static int[] modrms() {
        int[] out = new int[8 * 10];
        int k = 0;
        for (int reg = 0; reg < 8; reg++) {
            out[k++] = reg << 3;            // [rax]
            out[k++] = (reg << 3) | 4;      // [rsp] through a SIB byte
            int distinct = reg == 1 ? 2 : 1;
            out[k++] = 0xC0 | (reg << 3) | distinct;
            for (int rm = 0; rm < 8; rm++) {
                if (rm != distinct) {
                    out[k++] = 0xC0 | (reg << 3) | rm;
                }
            }
        }
        return out;
    }

    private static void sweepOpcodes(Zydis z, List<Integer> head, int[] modrms, byte[] candidate,
                                     Map<String, Decoding> found) {
        int n = head.size();
        for (int k = 0; k < n; k++) {
            candidate[k] = (byte) (int) head.get(k);
        }
        for (int opcode = 0; opcode < 256; opcode++) {
            candidate[n] = (byte) opcode;
            for (int modrm : modrms) {
                candidate[n + 1] = (byte) modrm;
                candidate[n + 2] = 0x24; // SIB when the ModRM asks for one: [rsp], no index
                // Displacements and immediates of 1: an immediate of 0 is a special case for some CPUs (adc r, 0).
                java.util.Arrays.fill(candidate, n + 3, candidate.length, (byte) 1);
                Decoding d = z.decodeFirst(candidate);
                if (d == null) {
                    continue;
                }
                Decoding before = found.get(d.form());
                if (before == null || d.length() < before.length()) {
                    found.put(d.form(), d);
                }
            }
        }
    }
}

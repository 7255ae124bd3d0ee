package dev.basalt.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DecodeCommandTest {

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    @Test
    void blocksAreSeparatedByOneBlankLineAndTheLastIsNotFollowedByOne() {
        CliRun r = run("decode", "4801d8", "488b07");
        assertEquals(0, r.exit(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(1, lines.stream().filter(String::isBlank).count(), r.out());
        assertTrue(lines.get(lines.indexOf("") + 1).startsWith("block 488b07:"), r.out());
        assertTrue(!lines.get(lines.size() - 1).isBlank(), r.out());
    }

    @Test
    void quickStartBlock() {
        CliRun r = run("decode", "4889de4889c24c89ff");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("mov rsi, rbx"), r.out());
        assertTrue(r.out().contains("mov rdx, rax"), r.out());
        assertTrue(r.out().contains("mov rdi, r15"), r.out());
        assertTrue(r.out().contains("0 -> 0  WAW  rsi  (loop)"), r.out());
        assertTrue(r.out().contains("dependencies (3,"), r.out());
        assertEquals("", r.err());
    }

    @Test
    void textShowsReadsWritesAndEdges() {
        // mov rax,[rdi]; add rax,rcx; mov [rdi],rax
        CliRun r = run("decode", "488b074801c8488907");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("add rax, rcx"), r.out());
        assertTrue(r.out().contains("1 -> 2  RAW  rax"), r.out());
        assertTrue(r.out().contains("2 -> 0  RAW  [rdi]  (loop)"), r.out());
        assertTrue(r.out().contains("rax,CF,OSZAP"), r.out());
    }

    @Test
    void jsonHasInstructionsAndDependencies() throws Exception {
        CliRun r = run("decode", "--json", "488b074801c8488907", "31c0");
        assertEquals(0, r.exit(), r.err());
        JsonNode root = new ObjectMapper().readTree(r.out());
        assertEquals(2, root.size());
        JsonNode first = root.get(0);
        assertEquals("488b074801c8488907", first.get("hex").asText());
        assertEquals(3, first.get("instructions").size());
        assertEquals("mov rax, qword ptr [rdi]", first.get("instructions").get(0).get("text").asText());
        assertEquals("ADD r64, r64", first.get("instructions").get(1).get("form").asText());
        assertEquals(10, first.get("dependencies").size());
        assertEquals("zero", root.get(1).get("instructions").get(0).get("idiom").asText());
        assertEquals(0, root.get(1).get("instructions").get(0).get("reads").size());
        // Keys are snake_case, as in every other command's JSON.
        assertEquals("same-expression", first.get("memory_policy").asText());
        assertTrue(first.get("instructions").get(1).has("flags_written")
                && first.get("instructions").get(1).has("isa_set"), first.toString());
        assertTrue(first.get("dependencies").get(0).has("resource_kind")
                && first.get("dependencies").get(0).has("loop_carried"), first.toString());
        java.util.List<String> camel = new java.util.ArrayList<>();
        java.util.regex.Matcher key = java.util.regex.Pattern.compile("\"([A-Za-z_]+)\" :").matcher(r.out());
        while (key.find()) {
            if (!key.group(1).equals(key.group(1).toLowerCase(java.util.Locale.ROOT))) {
                camel.add(key.group(1));
            }
        }
        assertEquals(java.util.List.of(), camel, "every key of every object");
    }

    @Test
    void allAliasPolicy() throws Exception {
        CliRun r = run("decode", "--json", "--memory", "all-alias", "4889442408488b5c2408488b4c2410");
        assertEquals(0, r.exit(), r.err());
        JsonNode deps = new ObjectMapper().readTree(r.out()).get(0).get("dependencies");
        assertEquals(7, deps.size());
    }

    @Test
    void badInputExitsTwoWithOneLinePerBadBlockAndKeepsTheGoodOnes() {
        CliRun r = run("decode", "4889d", "4889de", "0f0b0f");
        assertEquals(2, r.exit());
        String[] lines = r.err().strip().split("\n");
        assertEquals(2, lines.length, r.err());
        assertTrue(lines[0].contains("input 1 '4889d'") && lines[0].contains("byte offset 2"), lines[0]);
        assertTrue(lines[1].contains("input 3 '0f0b0f'") && lines[1].contains("byte offset 2"), lines[1]);
        assertFalse(r.err().contains("at dev.basalt"), "no stack trace without --debug");
        assertTrue(r.out().contains("mov rsi, rbx"), "the good block is still printed");
    }

    /** Each kind of bad input: exit 2 and one stderr line naming the input and the byte offset. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', textBlock = """
        ''           | 0 | empty input
        4889d        | 2 | odd number of hex digits
        4889xx       | 2 | is not a hex digit
        4889de488b74 | 3 | truncated instruction
        4889de06     | 3 | invalid instruction encoding
        """)
    void eachBadInputKind(String hex, int offset, String reason) {
        CliRun r = run("decode", hex);
        assertEquals(2, r.exit(), r.err());
        assertEquals(1, r.err().strip().split("\n").length, r.err());
        assertTrue(r.err().contains("byte offset " + offset + ": "), r.err());
        assertTrue(r.err().contains(reason), r.err());
    }

    @Test
    void hundredKilobytes() {
        CliRun r = run("decode", "90".repeat(100 * 1024));
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("byte offset 16384") && r.err().contains("102400 bytes"), r.err());
        assertTrue(r.err().length() < 400, "the input is abbreviated in the message");
    }

    @Test
    void debugPrintsStackTrace() {
        CliRun r = run("decode", "--debug", "zz");
        assertEquals(2, r.exit());
        assertTrue(r.err().contains("at dev.basalt"), r.err());
    }

    @Test
    void usageErrorsExitTwo() {
        assertEquals(2, run("decode").exit());
        assertEquals(2, run("decode", "--memory", "sometimes", "90").exit());
        assertEquals(2, run("no-such-command").exit());
    }

    @Test
    void formatJsonIsTheSameAsTheJsonFlag() {
        CliRun flag = CliRun.of("decode", "--json", "488b074801c8488907");
        CliRun format = CliRun.of("decode", "--format", "json", "488b074801c8488907");
        assertEquals(0, format.exit(), format.err());
        assertEquals(flag.out(), format.out());
        CliRun bad = CliRun.of("decode", "--format", "xml", "488b074801c8488907");
        assertEquals(2, bad.exit());
        assertEquals("basalt decode: unknown --format 'xml': use text, json or csv", bad.err().lines().findFirst().orElseThrow());
    }

    @Test
    void csvHasOneRowPerInstruction() {
        CliRun r = CliRun.of("decode", "--format", "csv", "488b074801c8488907", "4889de");
        assertEquals(0, r.exit(), r.err());
        java.util.List<String> lines = r.out().lines().toList();
        assertEquals("hex,index,offset,bytes,instruction,form,reads,writes", lines.get(0));
        assertEquals(5, lines.size(), r.out());
        assertEquals("488b074801c8488907,1,3,4801c8,\"add rax, rcx\",\"ADD r64, r64\",rax rcx,rax CF OSZAP",
                lines.get(2));
        assertEquals("4889de,0,0,4889de,\"mov rsi, rbx\",\"MOV r64, r64\",rbx,rsi", lines.get(4));
    }
}

package dev.basalt.web;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.nio.charset.StandardCharsets;

/**
 * Fuzzing (Jazzer) of what a page request reaches: the JSON body, the text's hex or assembly, the CPUs and
 * estimators it names. Every input is a prediction or a {@link WebApi.BadRequest} (a 400 with its message); the
 * upload path is the ELF reader, fuzzed in the decoder ({@code ParserFuzzTest#elf}).
 */
class RequestFuzzTest {

    private static final WebApi API = new WebApi();

    @FuzzTest(maxDuration = "65m")
    void request(byte[] input) {
        try {
            API.predict(WebApi.parse(new String(input, StandardCharsets.UTF_8)));
        } catch (WebApi.BadRequest expected) {
            // shown to the user, with its line and column where it has them
        }
    }
}

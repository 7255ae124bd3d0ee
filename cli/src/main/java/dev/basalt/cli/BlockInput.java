package dev.basalt.cli;

import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --input FILE}, mixed into every command that reads blocks: a BHive CSV (the hex is the first column) or
 * one hex block per line; {@code -} reads standard input. The blocks come after those given as arguments.
 */
final class BlockInput {

    @Option(names = "--input", paramLabel = "FILE", description = "BHive CSV or one hex per line; - reads "
            + "standard input.")
    Path input;

    /** {@code arguments}, then the blocks of {@code --input}; a file that cannot be read is bad input, named. */
    List<String> blocks(List<String> arguments) throws IOException {
        List<String> blocks = new ArrayList<>(arguments == null ? List.of() : arguments);
        if (input == null) {
            return blocks;
        }
        List<String> lines;
        if (input.toString().equals("-")) {
            lines = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).lines().toList();
        } else {
            if (Files.isDirectory(input)) {
                throw new BadInputException("--input " + input + " is a directory, not a file of blocks");
            }
            if (!Files.isReadable(input)) {
                throw new BadInputException("cannot read input file " + input + " (no such file, or not readable)");
            }
            try {
                lines = Files.readAllLines(input);
            } catch (CharacterCodingException notText) {
                throw new BadInputException("--input " + input + " is not UTF-8 text (a binary file?): give a "
                        + "BHive CSV or one hex block per line");
            }
        }
        for (String line : lines) {
            String t = line.trim();
            if (!t.isEmpty()) {
                blocks.add(t.contains(",") ? t.substring(0, t.indexOf(',')).trim() : t);
            }
        }
        return blocks;
    }
}

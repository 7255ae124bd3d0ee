package dev.basalt.doctests;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The examples of one Markdown page: every {@code ```console} block, read as a terminal transcript. A line that
 * starts with {@code $ } is a command (it goes on over the next lines while a quote is open or a line ends in a
 * backslash); the lines after it, up to the next command or the block's end, are what it prints on stdout. A line
 * that is only {@code ...} stands for any number of lines, and {@code ...} inside a line for any text: for what
 * changes from run to run (timings, measurements), never for a prediction. {@code [exit N]} as the last expected
 * line says the command fails with that status.
 */
record Transcript(Path page, List<Example> examples) {

    /** One command, the page line it starts on, and what it should print. */
    record Example(int line, String command, List<String> expected, int firstOutputLine) {

        /** The exit status the page says the command ends with (0 unless an {@code [exit N]} line says). */
        int exitStatus() {
            if (!expected.isEmpty()) {
                var m = EXIT.matcher(expected.get(expected.size() - 1));
                if (m.matches()) {
                    return Integer.parseInt(m.group(1));
                }
            }
            return 0;
        }

        /** The expected stdout, without an {@code [exit N]} line. */
        List<String> output() {
            return exitStatus() == 0 && (expected.isEmpty() || !EXIT.matcher(expected.get(expected.size() - 1))
                    .matches()) ? expected : expected.subList(0, expected.size() - 1);
        }
    }

    static final Pattern EXIT = Pattern.compile("\\[exit (\\d+)]");

    static Transcript parse(Path page, String markdown) {
        List<Example> out = new ArrayList<>();
        List<String> lines = markdown.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).strip().equals("```console")) {
                continue;
            }
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).strip().equals("```")) {
                end++;
            }
            if (end == lines.size()) {
                throw new IllegalArgumentException(page + " line " + (i + 1) + ": ```console block is never closed");
            }
            int j = i + 1;
            while (j < end) {
                if (!lines.get(j).startsWith("$ ")) {
                    throw new IllegalArgumentException(page + " line " + (j + 1)
                            + ": a console block starts with a command ($ ...)");
                }
                int start = j;
                StringBuilder command = new StringBuilder(lines.get(j).substring(2));
                while (open(command.toString()) && j + 1 < end) {
                    j++;
                    command.append('\n').append(lines.get(j));
                }
                j++;
                int outputStart = j;
                while (j < end && !lines.get(j).startsWith("$ ")) {
                    j++;
                }
                out.add(new Example(start + 1, command.toString(), List.copyOf(lines.subList(outputStart, j)),
                        outputStart + 1));
            }
            i = end;
        }
        return new Transcript(page, List.copyOf(out));
    }

    /** Whether a command's text goes on to the next line: an open quote, or a trailing backslash. */
    static boolean open(String command) {
        boolean single = false;
        boolean dbl = false;
        for (int k = 0; k < command.length(); k++) {
            char c = command.charAt(k);
            if (c == '\\' && !single && k + 1 < command.length()) {
                k++;
            } else if (c == '\'' && !dbl) {
                single = !single;
            } else if (c == '"' && !single) {
                dbl = !dbl;
            }
        }
        return single || dbl || command.endsWith("\\");
    }

    /** Whether {@code actual} is what {@code expected} shows, with its {@code ...} wildcards. */
    static boolean matches(List<String> expected, List<String> actual) {
        // Longest-common-subsequence style: m[i][j] = expected[i..] matches actual[j..].
        boolean[][] m = new boolean[expected.size() + 1][actual.size() + 1];
        m[expected.size()][actual.size()] = true;
        for (int i = expected.size() - 1; i >= 0; i--) {
            String e = expected.get(i).stripTrailing();
            for (int j = actual.size(); j >= 0; j--) {
                if (e.equals("...")) {
                    m[i][j] = m[i + 1][j] || (j < actual.size() && m[i][j + 1]);
                } else {
                    m[i][j] = j < actual.size() && line(e, actual.get(j).stripTrailing()) && m[i + 1][j + 1];
                }
            }
        }
        return m[0][0];
    }

    static boolean line(String expected, String actual) {
        if (!expected.contains("...")) {
            return expected.equals(actual);
        }
        StringBuilder regex = new StringBuilder();
        String[] parts = expected.split("\\.\\.\\.", -1);
        for (int k = 0; k < parts.length; k++) {
            regex.append(k == 0 ? "" : ".*").append(Pattern.quote(parts[k]));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(actual).matches();
    }
}

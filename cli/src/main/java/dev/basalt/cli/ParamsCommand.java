package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.BlockFiles;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.decoder.InstructionSpace;
import dev.basalt.simulator.mca.LlvmMcaImporter;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.TableCoverage;

import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code basalt params}: simulator parameter tables. */
@Command(name = "params", mixinStandardHelpOptions = true, description = "Simulator parameter tables.",
        subcommands = {ParamsCommand.Import.class, ParamsCommand.Coverage.class})
final class ParamsCommand {

    /** {@code basalt params import}. */
    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Derive a CPU's default simulator parameters from llvm-mca-14: over the instructions of "
                    + "the given blocks, over one instance of every instruction form the decoder knows "
                    + "(--all-forms), or both (rows from the blocks win).",
                    "With --base, the table's rows all stay and --all-forms adds the forms it lacks (how the bundled "
                    + "tables, tuned ones included, got the whole instruction set). --all-forms alone runs in about "
                    + "20 seconds; the bundled tables' 143,489 blocks take about 10 minutes per CPU."})
    static final class Import implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--mcpu", required = true, paramLabel = "CPU", description = "A CPU name or alias from the CPU descriptors (basalt --help lists them).")
        Microarchitecture mcpu;

        @Option(names = "--blocks", paramLabel = "FILE",
                description = "Block files (BHive CSV or one hex per line); repeatable.")
        List<Path> blocks = new ArrayList<>();

        @Option(names = "--all-forms", description = "Add a row for every instruction form the decoder produces "
                + "(a sweep of the encoding space, one instance per form) that the blocks or --base lack.")
        boolean allForms;

        @Option(names = "--base", paramLabel = "FILE", description = "A table to keep and add to (with --all-forms).")
        Path base;

        @Option(names = "--out", required = true, paramLabel = "FILE", description = "Parameter table to write (JSON).")
        Path out;

        @Option(names = "--llvm-mc", defaultValue = "llvm-mc-14", description = "llvm-mc to use (default ${DEFAULT-VALUE}).")
        String llvmMc;

        @Option(names = "--llvm-mca", defaultValue = "llvm-mca-14", description = "llvm-mca to use (default ${DEFAULT-VALUE}).")
        String llvmMca;

        @Mixin
        DebugOption debugOption;

        @Override
        public Integer call() throws Exception {
            Microarchitecture uarch = mcpu;
            if (base != null && !allForms) {
                throw new BadInputException("--base " + base + ": a base table is added to by --all-forms; give it too");
            }
            if (blocks.isEmpty() && !allForms) {
                throw new BadInputException("nothing to import: give --blocks FILE, --all-forms, or both");
            }
            if (base != null && !blocks.isEmpty()) {
                throw new BadInputException("--base " + base + " with --blocks: the base table's rows stay as they are, "
                        + "so the blocks would change nothing; give one of them");
            }
            Outputs.checkFile("--out", out);
            for (Path p : blocks) { // every file checked before the long import
                checkReadable("--blocks", p);
            }
            SimulatorParams table = null;
            if (base != null) {
                table = readTable("--base", base);
                if (!table.mcpu().equals(uarch.llvmName())) {
                    throw new BadInputException("--base " + base + " is a table for " + table.mcpu() + ", not "
                            + uarch.llvmName());
                }
            }
            StringBuilder command = new StringBuilder("basalt params import --mcpu " + uarch.llvmName());
            if (!llvmMca.equals("llvm-mca-14") || !llvmMc.equals("llvm-mc-14")) { // the tools are part of the recipe
                command.append(" --llvm-mca ").append(llvmMca).append(" --llvm-mc ").append(llvmMc);
            }
            blocks.forEach(p -> command.append(" --blocks ").append(p));
            if (allForms) {
                command.append(" --all-forms");
            }
            if (base != null) {
                command.append(" --base ").append(base);
            }
            command.append(" --out ").append(out);
            LlvmMcaImporter importer = new LlvmMcaImporter(llvmMc, llvmMca);
            java.io.PrintWriter err = spec.commandLine().getErr();
            if (!blocks.isEmpty()) {
                List<BasicBlock> all = distinctBlocks(err);
                LlvmMcaImporter.Report r = importer.run(all, uarch, command.toString(),
                        done -> err.printf("\r%s: %d / %d blocks", uarch, done, all.size()));
                err.println();
                table = r.params();
                spec.commandLine().getOut().printf("%s: %d forms from %d instruction occurrences in %d of %d blocks%n",
                        uarch, r.formsImported(), r.occurrences(), r.blocksImported(), r.blocks());
            }
            if (allForms) {
                long t0 = System.nanoTime();
                List<InstructionSpace.Form> forms = InstructionSpace.sweep();
                err.printf("%d instruction forms in the decoder's encoding space (%.1f s)%n", forms.size(),
                        (System.nanoTime() - t0) / 1e9);
                List<BasicBlock> instances = forms.stream()
                        .map(f -> BasicBlock.fromBytes(f.instance().bytes())).toList();
                LlvmMcaImporter.Report r = table == null
                        ? importer.run(instances, uarch, command.toString(), done -> { })
                        : importer.addForms(table, instances, uarch, command.toString(), done -> { });
                int before = table == null ? 0 : table.forms().size();
                table = r.params();
                spec.commandLine().getOut().printf("%s: %d forms added from the %d of the sweep (%d llvm-mca has no "
                        + "data for), %d in all%n", uarch, table.forms().size() - before, forms.size(),
                        r.blocks() - r.blocksImported(), table.forms().size());
            }
            table.write(out);
            spec.commandLine().getOut().printf("%s: %d forms -> %s%n", uarch, table.forms().size(), out);
            return 0;
        }

        private List<BasicBlock> distinctBlocks(java.io.PrintWriter err) throws java.io.IOException {
            Map<String, BasicBlock> distinct = new LinkedHashMap<>();
            for (Path p : blocks) {
                BlockFiles.Loaded l = BlockFiles.readUnlabelled(p);
                for (LabelledBlock b : l.blocks()) {
                    distinct.putIfAbsent(b.hex(), b.block());
                }
                err.println("read " + l.summary());
            }
            if (distinct.isEmpty()) { // a table of no forms would be written, and silently fall back everywhere
                throw new BadInputException("--blocks: no block in " + blocks.stream().map(Path::toString)
                        .reduce((a, b) -> a + ", " + b).orElse("") + " decoded: nothing to import");
            }
            return new ArrayList<>(distinct.values());
        }

        /**
         * The simulator table in {@code p} (given as {@code option}): a readable file holding a table whose port
         * groups are its ports (checked as it is read) and whose CPU this build knows.
         */
        static SimulatorParams readTable(String option, Path p) {
            checkReadable(option, p);
            SimulatorParams table;
            try {
                table = SimulatorParams.read(p);
            } catch (java.io.IOException | RuntimeException e) {
                String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                throw new BadInputException(option + " " + p + ": not a simulator table ("
                        + (why.startsWith(p + ": ") ? why.substring(p.toString().length() + 2) : why) + ")");
            }
            if (Microarchitecture.find(table.mcpu()).isEmpty()) {
                throw new BadInputException(option + " " + p + ": a table for CPU '" + table.mcpu() + "', which this "
                        + "build does not know (it knows " + String.join(", ", Microarchitecture.all().stream()
                        .map(Microarchitecture::llvmName).toList()) + ")");
            }
            return table;
        }

        static void checkReadable(String option, Path p) {
            if (java.nio.file.Files.isDirectory(p)) {
                throw new BadInputException(option + " " + p + " is a folder, not a file");
            }
            if (!java.nio.file.Files.isReadable(p)) {
                throw new BadInputException(option + " " + p + ": no such file, or not readable");
            }
            if (!looksLikeText(option, p)) {
                throw new BadInputException(option + " " + p + " is not UTF-8 text (a binary file?)");
            }
        }

        /** Whether the file's first 64 KB are UTF-8 text without NUL bytes (what every file of blocks or table is). */
        private static boolean looksLikeText(String option, Path p) {
            byte[] head = new byte[65536];
            int n;
            try (java.io.InputStream in = java.nio.file.Files.newInputStream(p)) {
                n = in.readNBytes(head, 0, head.length);
            } catch (java.io.IOException e) {
                throw new BadInputException(option + " " + p + ": cannot read it (" + e.getMessage() + ")");
            }
            for (int i = 0; i < n; i++) {
                if (head[i] == 0) {
                    return false;
                }
            }
            // Not the end of the input: a character cut at the 64 KB boundary is no error.
            java.nio.charset.CharsetDecoder utf8 = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
            return !utf8.decode(java.nio.ByteBuffer.wrap(head, 0, n), java.nio.CharBuffer.allocate(n), false)
                    .isError();
        }
    }

    /** {@code basalt params coverage}. */
    @Command(name = "coverage", mixinStandardHelpOptions = true,
            description = {"How much of real code the simulator tables price with their own rows: the instruction "
                    + "forms in the executable sections of the given ELF programs and libraries (a folder: the "
                    + "files directly in it), counted by occurrence, and the most frequent forms a table lacks.",
                    "Example: basalt params coverage /usr/bin /usr/lib/x86_64-linux-gnu"})
    static final class Coverage implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--mcpu", split = ",", paramLabel = "CPU",
                description = "CPUs whose standard tables to check (default: every CPU with a table).")
        List<Microarchitecture> mcpu = new ArrayList<>();

        @Option(names = "--params", paramLabel = "FILE", description = "A table file to check as well; repeatable.")
        List<Path> params = new ArrayList<>();

        @Option(names = "--top", defaultValue = "15", paramLabel = "N",
                description = "Missing forms to list per table (default ${DEFAULT-VALUE}).")
        int top;

        @Option(names = "--format", defaultValue = "text", paramLabel = "FORMAT",
                description = "text or markdown (default ${DEFAULT-VALUE}).")
        String format;

        @picocli.CommandLine.Parameters(arity = "1..*", paramLabel = "PATH", description = "ELF files or folders.")
        List<Path> paths;

        @Mixin
        DebugOption debugOption;

        @Override
        public Integer call() throws Exception {
            if (!format.equals("text") && !format.equals("markdown")) {
                throw new BadInputException("--format " + format + ": expected text or markdown");
            }
            if (top < 0) {
                throw new BadInputException("--top " + top + ": must be 0 or more");
            }
            for (Path p : paths) {
                if (!java.nio.file.Files.exists(p)) {
                    throw new BadInputException(p + ": no such file or folder");
                }
            }
            java.util.Map<String, SimulatorParams> tables = new java.util.LinkedHashMap<>();
            for (Path p : params) {
                tables.put(p.toString(), Import.readTable("--params", p));
            }
            List<Microarchitecture> cpus = mcpu.isEmpty() && params.isEmpty()
                    ? Microarchitecture.all().stream().filter(m -> SimulatorParams.imported(m).isPresent()).toList()
                    : mcpu;
            for (Microarchitecture m : cpus) {
                if (SimulatorParams.imported(m).isEmpty()) {
                    throw new BadInputException("--mcpu " + m + ": this build has no simulator table for it");
                }
                tables.put(m.llvmName(), SimulatorParams.standard(m));
            }
            java.io.PrintWriter err = spec.commandLine().getErr();
            long t0 = System.nanoTime();
            List<Path> files = TableCoverage.files(paths);
            TableCoverage.Scan scan;
            try (ProgressBars bars = new ProgressBars(spec.commandLine().getOut())) {
                bars.phase("scanning", files.size());
                scan = TableCoverage.scan(files, bars::progress);
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            scan.notScanned().stream().filter(r -> !r.endsWith(": not an ELF file"))
                    .forEach(r -> err.println("basalt params coverage: skipped " + r));
            java.io.PrintWriter out = spec.commandLine().getOut();
            boolean md = format.equals("markdown");
            out.printf(Locale.ROOT, "%d ELF files, %,d bytes of code, %,d instructions (%,d bytes skipped as "
                            + "undecodable), %,d distinct forms; %.0f s%n", scan.files(), scan.codeBytes(),
                    scan.instructions(), scan.skippedBytes(), scan.forms().size(), seconds);
            if (md) {
                out.println();
                out.println("| table | forms | occurrences with their own row |");
                out.println("|---|---:|---:|");
            }
            List<TableCoverage.Coverage> all = new ArrayList<>();
            tables.forEach((name, t) -> all.add(TableCoverage.of(scan, t)));
            int k = 0;
            for (String name : tables.keySet()) {
                TableCoverage.Coverage c = all.get(k++);
                out.printf(Locale.ROOT, md ? "| %s | %,d | %.3f%% |%n" : "%s: %,d forms, %.3f%% of occurrences have their own row%n",
                        name, c.tableForms(), c.percent());
            }
            k = 0;
            for (String name : tables.keySet()) {
                TableCoverage.Coverage c = all.get(k++);
                if (top == 0 || c.missing().isEmpty()) {
                    continue;
                }
                out.println();
                out.println(md ? "Most frequent forms without a row in " + name + ":" : "most frequent forms without a row in " + name + ":");
                if (md) {
                    out.println();
                    out.println("| form | occurrences | ISA extension |");
                    out.println("|---|---:|---|");
                }
                for (TableCoverage.FormCount f : c.missing().subList(0, Math.min(top, c.missing().size()))) {
                    out.printf(Locale.ROOT, md ? "| `%s` | %,d | %s |%n" : "  %-40s %,12d  %s%n", f.form(),
                            f.occurrences(), f.isaExtension());
                }
            }
            return 0;
        }
    }
}

package dev.basalt.cli;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.BlockFiles;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.LlvmMcaImporter;
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
        subcommands = {ParamsCommand.Import.class})
final class ParamsCommand {

    /** {@code basalt params import}. */
    @Command(name = "import", mixinStandardHelpOptions = true,
            description = "Derive a CPU's default simulator parameters from llvm-mca-14 over the instructions of "
                    + "the given blocks.")
    static final class Import implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--mcpu", required = true, paramLabel = "CPU", description = "A CPU name or alias from the CPU descriptors (README, \"CPUs are data\").")
        Microarchitecture mcpu;

        @Option(names = "--blocks", required = true, paramLabel = "FILE",
                description = "Block files (BHive CSV or one hex per line); repeatable.")
        List<Path> blocks;

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
            Map<String, BasicBlock> distinct = new LinkedHashMap<>();
            for (Path p : blocks) { // every file checked before the long import
                if (java.nio.file.Files.isDirectory(p)) {
                    throw new BadInputException("--blocks " + p + " is a folder, not a file of blocks");
                }
                if (!java.nio.file.Files.isReadable(p)) {
                    throw new BadInputException("--blocks " + p + ": no such file, or not readable");
                }
            }
            for (Path p : blocks) {
                BlockFiles.Loaded l = BlockFiles.readUnlabelled(p);
                for (LabelledBlock b : l.blocks()) {
                    distinct.putIfAbsent(b.hex(), b.block());
                }
                spec.commandLine().getErr().println("read " + l.summary());
            }
            List<BasicBlock> all = new ArrayList<>(distinct.values());
            if (all.isEmpty()) { // a table of no forms would be written, and silently fall back everywhere
                throw new BadInputException("--blocks: no block in " + blocks.stream().map(Path::toString)
                        .reduce((a, b) -> a + ", " + b).orElse("") + " decoded: nothing to import");
            }
            String command = "basalt params import --mcpu " + uarch.llvmName() + " " + blocks.stream()
                    .map(p -> "--blocks " + p).reduce((a, b) -> a + " " + b).orElse("") + " --out " + out;
            LlvmMcaImporter.Report r = new LlvmMcaImporter(llvmMc, llvmMca).run(all, uarch, command,
                    done -> spec.commandLine().getErr().printf("\r%s: %d / %d blocks", uarch, done, all.size()));
            spec.commandLine().getErr().println();
            r.params().write(out);
            spec.commandLine().getOut().printf("%s: %d forms from %d instruction occurrences in %d of %d blocks -> %s%n",
                    uarch, r.formsImported(), r.occurrences(), r.blocksImported(), r.blocks(), out);
            return 0;
        }
    }
}

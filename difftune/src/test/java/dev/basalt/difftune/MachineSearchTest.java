package dev.basalt.difftune;

import dev.basalt.core.Microarchitecture;
import dev.basalt.datasets.Dataset;
import dev.basalt.datasets.LabelledBlock;
import dev.basalt.datasets.Split;
import dev.basalt.datasets.SplitScheme;
import dev.basalt.decoder.BasicBlock;
import dev.basalt.simulator.params.ImmediateElimination;
import dev.basalt.simulator.Simulator;
import dev.basalt.simulator.params.SimulatorParams;
import dev.basalt.simulator.harness.StoreCommit;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The machine search finds a planted machine: "measurements" made by Skylake's table on a wider machine — a fifth
 * integer ALU and immediates eliminated at rename, as Golden Cove has — are fitted again from Skylake's machine,
 * which the row tuner could not have changed.
 */
class MachineSearchTest {

    private static final SimulatorParams SKL = SimulatorParams.standard(Microarchitecture.SKYLAKE);

    @Test
    void aFifthAluGrowsTheIntegerGroupAndAddsAPort() {
        SimulatorParams t = MachineSearch.withAluPort(SKL);
        assertEquals(SKL.ports().size() + 1, t.ports().size());
        String alu = SKL.generic().ports().keySet().iterator().next();
        String port = t.ports().get(t.ports().size() - 1);
        assertEquals(SKL.forms().get("ADD r64, r64").ports().get(alu), t.forms().get("ADD r64, r64").ports()
                .get(alu + port));
        // Groups other than the ALUs' keep their ports: imul on port 1 alone.
        assertEquals(SKL.forms().get("IMUL r64, r64").ports(), t.forms().get("IMUL r64, r64").ports());
        SimulatorParams loads = MachineSearch.withLoadPort(SKL);
        assertEquals(SKL.core().loadPorts().length() + 1, loads.core().loadPorts().length());
    }

    /** A second store-data port takes two stores of one line a cycle where Skylake's one port takes one. */
    @Test
    void aSecondStoreDataPortDoublesTheStores() {
        SimulatorParams two = MachineSearch.withStoreDataPort(SKL).withCore(
                MachineSearch.withStoreDataPort(SKL).core().withStoreCommit(new StoreCommit(2)));
        assertEquals(SKL.core().storeDataPorts().length() + 1, two.core().storeDataPorts().length());
        BasicBlock stores = BasicBlock.fromHex("4889034889430848894b1048895318"); // [rbx], [rbx+8], +16, +24
        Simulator.Options options = Simulator.Options.defaults();
        assertEquals(4.0, new Simulator(SKL).run(stores, options).cyclesPerIteration(), 0.05);
        assertEquals(2.0, new Simulator(two).run(stores, options).cyclesPerIteration(), 0.05);
    }

    @Test
    void findsAPlantedWiderMachine() {
        List<BasicBlock> all = Dataset.bundled().blocks(SplitScheme.defaults(), Split.TRAIN).stream()
                .filter(b -> b.hasLabel(Microarchitecture.SKYLAKE)).limit(1200).map(LabelledBlock::block).toList();
        SimulatorParams wider = MachineSearch.withAluPort(SKL);
        SimulatorParams truth = wider.withCore(wider.core().withImmediateElimination(new ImmediateElimination(5,
                1024)));
        Simulator.Options options = Simulator.Options.defaults();
        List<BasicBlock> train = all.subList(0, 900);
        List<BasicBlock> validation = all.subList(900, 1200);
        double[] trainY = SimulatorRefiner.simulate(truth, train, options);
        double[] validationY = SimulatorRefiner.simulate(truth, validation, options);
        List<String> log = new ArrayList<>();
        MachineSearch.Result r = MachineSearch.search(SKL, train, trainY, validation, validationY, 900, options,
                log::add);
        assertTrue(r.validationBefore() > 0.02, "the planted machine must matter: " + r.validationBefore());
        assertEquals("one more", r.choices().get("integer ALUs"), log.toString());
        assertEquals("yes", r.choices().get("immediates eliminated at rename"), log.toString());
        assertTrue(r.validationAfter() < 0.25 * r.validationBefore(), r.validationBefore() + " -> "
                + r.validationAfter() + " " + log);
    }
}

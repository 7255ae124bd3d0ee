package dev.basalt.simulator;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The simulator's packages and the direction of their dependencies (docs/code-structure.md): harness memory at the
 * bottom, then the tables, the facts both machines share, the machines and the bounds beside each other, the
 * llvm-mca import, and the facade on top. A class that imports upward, or a cycle between packages, fails here.
 */
class LayeringTest {

    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.basalt.simulator");

    @Test
    void dependenciesPointDown() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("facade").definedBy("dev.basalt.simulator")
                .layer("mca").definedBy("dev.basalt.simulator.mca..")
                .layer("pipeline").definedBy("dev.basalt.simulator.pipeline..")
                .layer("firstgen").definedBy("dev.basalt.simulator.firstgen..")
                .layer("bounds").definedBy("dev.basalt.simulator.bounds..")
                .layer("facts").definedBy("dev.basalt.simulator.facts..")
                .layer("params").definedBy("dev.basalt.simulator.params..")
                .layer("harness").definedBy("dev.basalt.simulator.harness..")
                .whereLayer("facade").mayNotBeAccessedByAnyLayer()
                .whereLayer("mca").mayOnlyBeAccessedByLayers("facade")
                .whereLayer("pipeline").mayOnlyBeAccessedByLayers("facade")
                .whereLayer("firstgen").mayOnlyBeAccessedByLayers("facade")
                .whereLayer("bounds").mayOnlyBeAccessedByLayers("facade")
                .whereLayer("facts").mayOnlyBeAccessedByLayers("facade", "mca", "pipeline", "firstgen", "bounds")
                .whereLayer("params").mayOnlyBeAccessedByLayers("facade", "mca", "pipeline", "firstgen", "bounds",
                        "facts")
                .whereLayer("harness").mayOnlyBeAccessedByLayers("facade", "mca", "pipeline", "firstgen", "bounds",
                        "facts", "params")
                .check(MAIN);
    }

    @Test
    void packagesFormNoCycle() {
        slices().matching("dev.basalt.simulator.(**)").should().beFreeOfCycles().check(MAIN);
    }
}

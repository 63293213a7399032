package dev.idempotency.store;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.idempotency.store.testing.PackageSlices;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The store module as rules: a plain library (no servlet, no bytecode), whose API (this package) knows nothing of its
 * JDBC implementation, so a store of another family implements the same API; no package cycles.
 */
class ArchitectureTest {
    private static final String STORE = "dev.idempotency.store";
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(STORE);

    @Test
    void noPackageCycles() {
        slices().assignedFrom(PackageSlices.under(STORE)).should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theApiKnowsNoImplementation() {
        noClasses().that().resideInAPackage(STORE).should().dependOnClassesThat().resideInAPackage(STORE + ".jdbc..").check(MAIN);
    }

    @Test
    void anImplementationKnowsNotTheFrontDoor() {
        noClasses().that().resideInAPackage(STORE + ".jdbc..").should().dependOnClassesThat()
                .resideInAPackage(STORE + ".families..").check(MAIN);
    }

    @Test
    void aPlainLibrary() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("javax.servlet..", "jakarta.servlet..", "javax.ws.rs..",
                "jakarta.ws.rs..", "net.bytebuddy..", "org.objectweb.asm..", "dev.idempotency.agent..").check(MAIN);
    }
}

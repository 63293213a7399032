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
 * implementations (JDBC, Redis), which know nothing of each other, so each family implements the same API alone; no
 * package cycles.
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
        noClasses().that().resideInAPackage(STORE).should().dependOnClassesThat()
                .resideInAnyPackage(STORE + ".jdbc..", STORE + ".redis..").check(MAIN);
    }

    @Test
    void anImplementationKnowsNotTheFrontDoor() {
        noClasses().that().resideInAnyPackage(STORE + ".jdbc..", STORE + ".redis..").should().dependOnClassesThat()
                .resideInAPackage(STORE + ".families..").check(MAIN);
    }

    @Test
    void theFamiliesKnowNothingOfEachOther() {
        noClasses().that().resideInAPackage(STORE + ".redis..").should().dependOnClassesThat()
                .resideInAnyPackage(STORE + ".jdbc..", "java.sql..", "javax.sql..", "com.zaxxer..").check(MAIN);
        noClasses().that().resideInAPackage(STORE + ".jdbc..").should().dependOnClassesThat()
                .resideInAnyPackage(STORE + ".redis..", "redis.clients..", "org.apache.commons.pool2..").check(MAIN);
    }

    @Test
    void aPlainLibrary() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("javax.servlet..", "jakarta.servlet..", "javax.ws.rs..",
                "jakarta.ws.rs..", "net.bytebuddy..", "org.objectweb.asm..", "dev.idempotency.agent..").check(MAIN);
    }
}

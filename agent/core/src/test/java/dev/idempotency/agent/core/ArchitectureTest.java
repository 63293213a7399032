package dev.idempotency.agent.core;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.idempotency.store.testing.PackageSlices;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The agent's layout as rules: where a request enters ({@code servlet}, {@code jaxrs}), where it is decided
 * ({@code gate}, with the HTTP rules of {@code protocol}), where the store is opened and kept ({@code lifecycle}), the
 * bytecode that routes requests there ({@code instrument}), and the operator's tool ({@code cli}). Every package is a
 * slice of its own, the root package too, so a cycle through the composition root counts. ArchUnit reads bytecode: a
 * compile-time constant of another package is inlined and invisible to it, so such constants live with the package
 * that owns their meaning ({@code JaxrsEdges.JERSEY_RESOURCE_CONFIG}, read by the instrumentation).
 */
class ArchitectureTest {
    private static final String CORE = "dev.idempotency.agent.core";
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages(CORE);

    @Test
    void noPackageCycles() {
        slices().assignedFrom(PackageSlices.under(CORE)).should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void theRequestPathNeverReachesTheOperatorsTool() {
        noClasses().that().resideOutsideOfPackages(CORE + ".cli..")
                .should().dependOnClassesThat().resideInAPackage(CORE + ".cli..").check(MAIN);
    }

    @Test
    void requestHandlingKnowsNoBytecodeEngine() {
        noClasses().that().resideInAnyPackage(CORE + ".servlet..", CORE + ".jaxrs..", CORE + ".gate..", CORE + ".protocol..",
                        CORE + ".effects..", CORE + ".lifecycle..", CORE + ".telemetry..", CORE + ".config..", CORE + ".edge..",
                        CORE + ".log..", CORE + ".threads..")
                .should().dependOnClassesThat().resideInAnyPackage(CORE + ".instrument..", "net.bytebuddy..", "org.objectweb.asm..")
                .check(MAIN);
    }

    @Test
    void theDecisionKnowsNoEntryPoint() {
        noClasses().that().resideInAnyPackage(CORE + ".gate..", CORE + ".protocol..")
                .should().dependOnClassesThat().resideInAnyPackage(CORE + ".servlet..", CORE + ".jaxrs..", CORE + ".instrument..")
                .check(MAIN);
    }

    @Test
    void theProtocolRulesKnowNoStoreAndNoConfiguration() {
        noClasses().that().resideInAPackage(CORE + ".protocol..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.idempotency.store..", CORE + ".config..", CORE + ".lifecycle..")
                .check(MAIN);
    }

    /**
     * The store is opened through its front door ({@code StoreFamilies}) and used through its API, so another family
     * of stores plugs in without touching the agent. Two exceptions by nature: the operator's tool (schema DDL, the
     * doctor's database checks) and {@code RequestEffects} under {@code recovery=transaction}, whose marks go into the
     * application's own JDBC transaction.
     */
    @Test
    void onlyTheOperatorsToolAndTransactionMarksSeeTheJdbcStore() {
        noClasses().that().resideOutsideOfPackages(CORE + ".cli..")
                .and().haveNameNotMatching(java.util.regex.Pattern.quote(CORE + ".effects.RequestEffects") + "(\\$.*)?")
                .should().dependOnClassesThat().resideInAPackage("dev.idempotency.store.jdbc..").check(MAIN);
    }
}

package dev.idempotency.store.testing;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;

/**
 * For the architecture tests of the store and the agent: every package under a base package is a slice of its own,
 * the base package too (ArchUnit's {@code matching("base.(*)..")} would leave the base package out, and with it any
 * cycle through a composition root there); classes elsewhere are left out.
 */
public final class PackageSlices implements SliceAssignment {
    private final String base;

    private PackageSlices(String base) {
        this.base = base;
    }

    public static PackageSlices under(String base) {
        return new PackageSlices(base);
    }

    @Override
    public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
        String name = javaClass.getPackageName();
        return name.equals(base) || name.startsWith(base + ".") ? SliceIdentifier.of(name) : SliceIdentifier.ignore();
    }

    @Override
    public String getDescription() {
        return "packages of " + base;
    }
}

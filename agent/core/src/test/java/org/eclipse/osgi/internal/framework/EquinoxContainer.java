package org.eclipse.osgi.internal.framework;

/** Stands in for Equinox's class of this name in OsgiBootDelegationTest: only its boot delegation test. */
public class EquinoxContainer {
    public boolean isBootDelegationPackage(String name) {
        return name.startsWith("sun.");
    }
}

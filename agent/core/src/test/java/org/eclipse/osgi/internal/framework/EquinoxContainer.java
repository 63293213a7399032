package org.eclipse.osgi.internal.framework;

/**
 * Stands in for Equinox's class of this name in OsgiBootDelegationTest: only its boot delegation test, shaped like
 * Equinox's (exact names, then stems), so the woven code meets branches and stack map frames.
 */
public class EquinoxContainer {
    private final java.util.Set<String> bootDelegation = java.util.Collections.singleton("sun.misc");
    private final String[] bootDelegationStems = {"com.sun."};

    public boolean isBootDelegationPackage(String name) {
        if (bootDelegation.contains(name)) return true;
        for (String stem : bootDelegationStems) {
            if (name.startsWith(stem)) return true;
        }
        return false;
    }
}

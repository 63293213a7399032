package org.apache.felix.framework;

/**
 * Stands in for Felix's class of this name in OsgiBootDelegationTest: only its boot delegation test, shaped like
 * Felix's (a loop over the configured packages, wildcards), so the woven code meets branches and stack map frames.
 */
public class BundleWiringImpl {
    private final String[] bootPackages = {"java.*", "sun.misc"};

    boolean shouldBootDelegate(String pkgName) {
        boolean result = false;
        if (pkgName.length() > 0) {
            for (int i = 0; !result && i < bootPackages.length; i++) {
                String configured = bootPackages[i];
                result = configured.endsWith(".*")
                        ? pkgName.startsWith(configured.substring(0, configured.length() - 1)) : pkgName.equals(configured);
            }
        }
        return result;
    }
}

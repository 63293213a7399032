package org.apache.felix.framework;

/** Stands in for Felix's class of this name in OsgiBootDelegationTest: only its boot delegation test. */
public class BundleWiringImpl {
    boolean shouldBootDelegate(String pkgName) {
        return pkgName.startsWith("java.");
    }
}

package dev.idempotency.agent.core;

import dev.idempotency.agent.core.log.AgentLog;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The transformer the premain registers, before the host's main runs, so that no class escapes; Byte Buddy (about a
 * thousand classes, most of what the agent used to add to a server's start-up) is set up meanwhile on a thread of its
 * own, beside the host's start-up instead of before it. Only a class that declares a method the agent advises (or is a
 * type it advises by name) goes to Byte Buddy, waiting for it if need be; every other class passes after one walk of
 * its constant pool, without being described, matched or having its super types read.
 */
final class DeferredTransformer implements ClassFileTransformer {
    /** A class that needs Byte Buddy waits at most this long for it; past it, the class loads unprotected (logged). */
    static final long SETUP_WAIT_SECONDS = 60;

    private static final DeclaredMethods ADVISED_METHODS = AdvisedMethods.inClassFiles();
    private static final String ADVISED_BY_NAME = AdvisedMethods.JERSEY_RESOURCE_CONFIG.replace('.', '/');

    private final ClassLoader agentLoader = DeferredTransformer.class.getClassLoader();
    private final CountDownLatch settled = new CountDownLatch(1);
    /** Set once a class waited in vain: no later class waits again (each logged failure would cost a minute). */
    private final AtomicBoolean gaveUp = new AtomicBoolean();
    /** Byte Buddy's transformer once set up; stays null when the set-up failed. */
    private volatile ClassFileTransformer byteBuddy;

    private DeferredTransformer() {
    }

    /** Registers the transformer now and sets up Byte Buddy on an agent thread. */
    static DeferredTransformer register(Instrumentation instrumentation) {
        DeferredTransformer deferred = new DeferredTransformer();
        ADVISED_METHODS.mayDeclare(new byte[0]); // loaded before registering: the transformer never waits on itself
        instrumentation.addTransformer(deferred, true);
        Thread setUp = new Thread(deferred::setUp, "idempotency-agent-instrumentation");
        setUp.setDaemon(true);
        setUp.setContextClassLoader(deferred.agentLoader);
        setUp.start();
        return deferred;
    }

    private void setUp() {
        try {
            byteBuddy = Instrumentations.forStartUp();
        } catch (Throwable t) {
            AgentLog.error("could not set up the instrumentation; the application runs UNPROTECTED", t);
        } finally {
            settled.countDown();
        }
    }

    /** Whether the class may need advice: false for nearly every class a server loads. */
    static boolean mayNeed(String internalName, byte[] classFile) {
        return ADVISED_BY_NAME.equals(internalName) || ADVISED_METHODS.mayDeclare(classFile);
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain, byte[] classFile)
            throws IllegalClassFormatException {
        // the bootstrap loader holds no servlets; the agent's own loader is where Byte Buddy is being loaded from
        if (loader == null || loader == agentLoader || classFile == null || !mayNeed(internalName, classFile)) return null;
        ClassFileTransformer transformer = byteBuddy;
        if (transformer == null) transformer = awaitSetUp(internalName);
        return transformer == null ? null : transformer.transform(loader, internalName, redefined, domain, classFile);
    }

    private ClassFileTransformer awaitSetUp(String internalName) {
        if (gaveUp.get()) return null;
        try {
            if (!settled.await(SETUP_WAIT_SECONDS, TimeUnit.SECONDS) && gaveUp.compareAndSet(false, true)) {
                AgentLog.error("the instrumentation was not set up within " + SETUP_WAIT_SECONDS + " s; "
                        + internalName.replace('/', '.') + " and the classes that need it until then are NOT protected");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            AgentLog.error("interrupted while waiting for the instrumentation; " + internalName.replace('/', '.') + " is NOT protected");
        }
        return byteBuddy;
    }
}

package dev.idempotency.agent.core;

import dev.idempotency.agent.core.log.AgentLog;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.IllegalClassFormatException;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The transformer the premain registers, before the host's main runs, so that no class escapes; Byte Buddy (about a
 * thousand classes, most of what the agent used to add to a server's start-up) is set up meanwhile on a thread of its
 * own, beside the host's start-up instead of before it. Only a class that declares a method the agent advises (or is a
 * type it advises by name) goes to Byte Buddy, waiting for it if need be; every other class passes after one walk of
 * its constant pool, without being described, matched or having its super types read.
 */
final class DeferredTransformer implements ClassFileTransformer {
    /**
     * How long after registration classes that need Byte Buddy wait for it. Past it they load unprotected, and are
     * retransformed as soon as Byte Buddy is ready after all.
     */
    static final long SETUP_WAIT_SECONDS = 60;

    private static final DeclaredMethods ADVISED_METHODS = AdvisedMethods.inClassFiles();
    private static final String ADVISED_BY_NAME = AdvisedMethods.JERSEY_RESOURCE_CONFIG.replace('.', '/');

    private final Instrumentation instrumentation;
    private final ClassLoader agentLoader = DeferredTransformer.class.getClassLoader();
    private final CountDownLatch settled = new CountDownLatch(1);
    private final long deadline;
    /** Names of the classes that loaded unprotected because the set-up was late; null once it is over. */
    private Set<String> loadedTooEarly = new HashSet<>();
    private volatile Thread setUpThread;
    /** Byte Buddy's transformer once set up; stays null when the set-up failed. */
    private volatile ClassFileTransformer byteBuddy;

    private DeferredTransformer(Instrumentation instrumentation, long waitNanos) {
        this.instrumentation = instrumentation;
        this.deadline = System.nanoTime() + waitNanos;
    }

    /**
     * Registers the transformer now and sets up Byte Buddy on an agent thread, which then tells {@code outcome} null
     * (ready) or why it failed.
     */
    static DeferredTransformer register(Instrumentation instrumentation, Consumer<Throwable> outcome) {
        return start(instrumentation, Instrumentations::forStartUp, TimeUnit.SECONDS.toNanos(SETUP_WAIT_SECONDS), outcome);
    }

    static DeferredTransformer start(Instrumentation instrumentation, Callable<ClassFileTransformer> setUp, long waitNanos,
                                     Consumer<Throwable> outcome) {
        DeferredTransformer deferred = new DeferredTransformer(instrumentation, waitNanos);
        ADVISED_METHODS.mayDeclare(new byte[0]); // loaded before registering: the transformer never waits on itself
        instrumentation.addTransformer(deferred, true);
        Thread thread = new Thread(() -> deferred.setUp(setUp, outcome), "idempotency-agent-instrumentation");
        thread.setDaemon(true);
        thread.setContextClassLoader(deferred.agentLoader);
        deferred.setUpThread = thread;
        thread.start();
        return deferred;
    }

    private void setUp(Callable<ClassFileTransformer> setUp, Consumer<Throwable> outcome) {
        Throwable failure = null;
        try {
            byteBuddy = setUp.call();
        } catch (Throwable t) {
            failure = t;
            AgentLog.error("could not set up the instrumentation; the application runs UNPROTECTED", t);
        } finally {
            settled.countDown();
        }
        if (failure == null) retransformLoadedTooEarly();
        outcome.accept(failure);
    }

    /** Whether the class may need advice: false for nearly every class a server loads. */
    static boolean mayNeed(String internalName, byte[] classFile) {
        return ADVISED_BY_NAME.equals(internalName) || ADVISED_METHODS.mayDeclare(classFile);
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain, byte[] classFile)
            throws IllegalClassFormatException {
        // the bootstrap loader holds no servlets; the agent's own loader is where Byte Buddy is being loaded from
        if (loader == null || loader == agentLoader || internalName == null || classFile == null || !mayNeed(internalName, classFile)) {
            return null;
        }
        ClassFileTransformer transformer = byteBuddy;
        if (transformer == null) transformer = awaitSetUp(internalName);
        return transformer == null ? null : transformer.transform(loader, internalName, redefined, domain, classFile);
    }

    private ClassFileTransformer awaitSetUp(String internalName) {
        // the set-up thread itself never waits: only it can end the wait
        if (Thread.currentThread() != setUpThread) awaitUninterruptibly();
        ClassFileTransformer transformer = byteBuddy;
        if (transformer == null && settled.getCount() > 0) {
            boolean first;
            synchronized (this) {
                if (loadedTooEarly == null) return byteBuddy; // the set-up has just ended
                first = loadedTooEarly.isEmpty();
                loadedTooEarly.add(internalName.replace('/', '.'));
            }
            if (first) {
                AgentLog.error("the instrumentation was not set up within " + SETUP_WAIT_SECONDS + " s of the start; "
                        + internalName.replace('/', '.') + " and the classes that need it until then load unprotected, and are"
                        + " retransformed once it is ready");
            }
        }
        return transformer;
    }

    private void awaitUninterruptibly() {
        boolean interrupted = false;
        try {
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                try {
                    if (settled.await(left, TimeUnit.NANOSECONDS)) return;
                } catch (InterruptedException e) {
                    interrupted = true; // a class must not load unprotected because its thread was interrupted
                }
            }
        } finally {
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    private void retransformLoadedTooEarly() {
        Set<String> names;
        synchronized (this) {
            names = loadedTooEarly;
            loadedTooEarly = null;
        }
        if (names.isEmpty()) return;
        List<Class<?>> classes = new ArrayList<>();
        Set<String> missing = new HashSet<>(names);
        for (Class<?> loaded : instrumentation.getAllLoadedClasses()) {
            if (names.contains(loaded.getName()) && instrumentation.isModifiableClass(loaded)) {
                classes.add(loaded);
                missing.remove(loaded.getName());
            }
        }
        if (!missing.isEmpty()) {
            AgentLog.warn("not retransformed, not found among the loaded classes (or not modifiable): " + missing
                    + "; if they did load, their requests are NOT protected");
        }
        try {
            instrumentation.retransformClasses(classes.toArray(new Class<?>[0]));
            AgentLog.info("the instrumentation is set up after all: " + classes.size() + " classes that loaded before it were retransformed");
        } catch (Throwable t) {
            AgentLog.error("could not retransform the " + classes.size() + " classes loaded before the instrumentation was set up;"
                    + " their requests are NOT protected", t);
        }
    }
}

package dev.idempotency.agent.core;

import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Proxy;
import java.security.ProtectionDomain;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How classes wait for Byte Buddy while it is set up beside the host's start-up: with a set-up that the test holds back
 * or fails, and the JVM's instrumentation reduced to the calls the transformer makes (recorded, not performed).
 */
class DeferredTransformerSetUpTest {
    private static final byte[] ADVISED = "advised".getBytes();
    private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(60);

    /** A loaded class whose name the late servlet's class file carries, for the retransformation to find. */
    static final class LateServlet {
    }

    private final List<Class<?>> retransformed = Collections.synchronizedList(new ArrayList<Class<?>>());
    private final CompletableFuture<Throwable> outcome = new CompletableFuture<>();
    /** A host's loader: not the agent's own (this test's), whose classes the transformer passes over. */
    private final ClassLoader loader = new ClassLoader(null) {
    };

    private Instrumentation instrumentation() {
        return (Instrumentation) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Instrumentation.class}, (proxy, method, args) -> {
            switch (method.getName()) {
                case "addTransformer": return null;
                case "getAllLoadedClasses": return new Class<?>[] {String.class, LateServlet.class};
                case "isModifiableClass": return true;
                case "retransformClasses": retransformed.addAll(Arrays.asList((Class<?>[]) args[0])); return null;
                default: throw new UnsupportedOperationException(method.getName());
            }
        });
    }

    private static ClassFileTransformer advising() {
        return new ClassFileTransformer() {
            @Override
            public byte[] transform(ClassLoader l, String name, Class<?> redefined, ProtectionDomain domain, byte[] classFile) {
                return ADVISED;
            }
        };
    }

    private static byte[] servlet(String internalName) {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V1_8, Opcodes.ACC_PUBLIC, internalName, null, "java/lang/Object", new String[] {"javax/servlet/Servlet"});
        MethodVisitor service = writer.visitMethod(Opcodes.ACC_PUBLIC, "service",
                "(Ljavax/servlet/ServletRequest;Ljavax/servlet/ServletResponse;)V", null, null);
        service.visitCode();
        service.visitInsn(Opcodes.RETURN);
        service.visitMaxs(0, 3);
        service.visitEnd();
        writer.visitEnd();
        return writer.toByteArray();
    }

    /** Starts with a set-up that ends, with Byte Buddy's place taken by {@link #advising()}, once {@code release} opens. */
    private DeferredTransformer heldBack(CountDownLatch release, long waitNanos) {
        return DeferredTransformer.start(instrumentation(), () -> {
            release.await();
            return advising();
        }, waitNanos, outcome::complete);
    }

    private byte[] transform(DeferredTransformer deferred, String internalName, byte[] classFile) throws Exception {
        return deferred.transform(loader, internalName, null, null, classFile);
    }

    @Test
    void aClassThatNeedsNoAdviceNeverWaits() {
        CountDownLatch never = new CountDownLatch(1);
        DeferredTransformer deferred = heldBack(never, LONG_WAIT);
        byte[] plain = new ClassWriter(0).toByteArray();
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertNull(transform(deferred, "example/Plain", plain)));
        never.countDown();
    }

    @Test
    void aServletWaitsForTheSetUpAndGetsItsAdvice() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredTransformer deferred = heldBack(release, LONG_WAIT);
        CompletableFuture<byte[]> loaded = CompletableFuture.supplyAsync(() -> {
            try {
                return transform(deferred, "example/EarlyServlet", servlet("example/EarlyServlet"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        release.countDown(); // a servlet that had not waited would have loaded without advice

        assertArrayEquals(ADVISED, loaded.get(10, TimeUnit.SECONDS));
        assertNull(outcome.get(10, TimeUnit.SECONDS));
        assertEquals(Collections.emptyList(), retransformed);
    }

    @Test
    void anInterruptedThreadStillWaitsAndKeepsItsInterrupt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredTransformer deferred = heldBack(release, LONG_WAIT);
        AtomicReference<byte[]> result = new AtomicReference<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread loading = new Thread(() -> {
            Thread.currentThread().interrupt();
            try {
                result.set(transform(deferred, "example/InterruptedServlet", servlet("example/InterruptedServlet")));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        loading.start();
        // it waits (a thread that did not wait would have finished with no advice by now)
        while (loading.getState() != Thread.State.TIMED_WAITING && loading.isAlive()) Thread.onSpinWait();
        assertTrue(loading.isAlive(), "the interrupted thread did not wait for the set-up");
        release.countDown();
        loading.join(10_000);
        assertArrayEquals(ADVISED, result.get());
        assertEquals(Boolean.TRUE, stillInterrupted.get());
    }

    @Test
    void aSetUpPastTheWaitLetsClassesLoadAndThenRetransformsThem() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        DeferredTransformer deferred = heldBack(release, TimeUnit.MILLISECONDS.toNanos(200));
        String name = LateServlet.class.getName().replace('.', '/');
        assertNull(transform(deferred, name, servlet(name)), "past the wait the class loads as it is");
        release.countDown();
        assertNull(outcome.get(10, TimeUnit.SECONDS));
        assertEquals(Collections.<Class<?>>singletonList(LateServlet.class), retransformed);
        assertArrayEquals(ADVISED, transform(deferred, name, servlet(name)), "the retransformation is advised");
    }

    @Test
    void aFailedSetUpIsReportedAndNothingWaitsForIt() throws Exception {
        IllegalStateException broken = new IllegalStateException("broken");
        DeferredTransformer deferred = DeferredTransformer.start(instrumentation(), () -> {
            throw broken;
        }, LONG_WAIT, outcome::complete);
        assertSame(broken, outcome.get(10, TimeUnit.SECONDS));
        assertTimeoutPreemptively(Duration.ofSeconds(5),
                () -> assertNull(transform(deferred, "example/AfterFailure", servlet("example/AfterFailure"))));
    }

    @Test
    void theSetUpThreadNeverWaitsForItself() throws Exception {
        CompletableFuture<DeferredTransformer> registered = new CompletableFuture<>();
        AtomicReference<byte[]> ownLoad = new AtomicReference<>(ADVISED);
        DeferredTransformer deferred = DeferredTransformer.start(instrumentation(), () -> {
            // a class the set-up itself loads, shaped like a servlet: waiting for the set-up would take the whole minute
            ownLoad.set(transform(registered.get(), "example/DuringSetUp", servlet("example/DuringSetUp")));
            return advising();
        }, LONG_WAIT, outcome::complete);
        registered.complete(deferred);
        assertNull(outcome.get(10, TimeUnit.SECONDS));
        assertNull(ownLoad.get());
    }
}

package dev.idempotency.agent.core.servlet;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request already inside a filter when the agent attaches is left alone at the servlet it reaches afterwards; the
 * next request on the same thread, and every request on other threads, is protected.
 */
class RequestsBeforeAttachTest {

    /** Stands for an instrumented servlet or filter: its frames are what the attach looks for. */
    static final class Component {
        private final Runnable inside;

        Component(Runnable inside) {
            this.inside = inside;
        }

        void doFilter() {
            inside.run();
        }

        void service() {
            inside.run();
        }
    }

    @Test
    void onlyTheRequestRunningAtTheAttachIsLeftAlone() throws Exception {
        RequestsBeforeAttach before = new RequestsBeforeAttach();
        before.instrumented(Component.class.getName());
        CountDownLatch inFilter = new CountDownLatch(1);
        CountDownLatch attached = new CountDownLatch(1);
        AtomicReference<Boolean> oldRequestAtServlet = new AtomicReference<>();
        AtomicReference<Boolean> nextRequestAtFilter = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            // The request in flight: inside a filter when the agent attaches, at a servlet afterwards.
            new Component(() -> {
                inFilter.countDown();
                await(attached);
                new Component(() -> oldRequestAtServlet.set(before.isCurrentRequestOlder())).service();
            }).doFilter();
            // The next request on the same thread, at its first entry.
            new Component(() -> nextRequestAtFilter.set(before.isCurrentRequestOlder())).doFilter();
        });
        worker.start();
        assertTrue(inFilter.await(10, TimeUnit.SECONDS));
        assertEquals(1, before.snapshot(), "one thread is inside a component");
        assertFalse(before.isCurrentRequestOlder(), "this thread was not inside a request");
        attached.countDown();
        worker.join(10_000);
        assertEquals(Boolean.TRUE, oldRequestAtServlet.get(), "the request that began before the attach is left alone");
        assertEquals(Boolean.FALSE, nextRequestAtFilter.get(), "the next request on that thread is protected");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

package dev.idempotency.agent.core.jaxrs;

import dev.idempotency.agent.bootstrap.bridge.JaxrsAccessor;
import dev.idempotency.agent.core.gate.Decision;
import dev.idempotency.agent.core.gate.H2Gate;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.reflect.Proxy;
import java.util.Collections;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** How a standalone JAX-RS exchange ends a keyed request, against an embedded H2 store and a JAX-RS API stood in for by a proxy. */
class JaxrsExchangeTest {
    private final H2Gate h2 = new H2Gate("jaxrs-exchange");
    private final AgentMetrics metrics = h2.metrics;

    @AfterEach
    void close() {
        h2.close();
    }

    /**
     * A runtime whose message body writer writes {@code entity} in one write to the output it is given, to a client
     * whose connection is gone; every other call answers null, false or 0.
     */
    private static JaxrsAccessor writingToAGoneClient(byte[] entity) {
        OutputStream[] output = {new OutputStream() {
            @Override public void write(int b) throws IOException { throw new IOException("Broken pipe"); }
        }};
        return (JaxrsAccessor) Proxy.newProxyInstance(JaxrsExchangeTest.class.getClassLoader(), new Class<?>[] {JaxrsAccessor.class},
                (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "status": return 200;
                        case "hasEntity": return true;
                        case "writerHeaders": return Collections.emptyList();
                        case "output": return output[0];
                        case "setOutput": output[0] = (OutputStream) args[1]; return null;
                        case "proceed": output[0].write(entity, 0, entity.length); return null;
                        default:
                            Class<?> type = method.getReturnType();
                            if (type == boolean.class) return false;
                            if (type == int.class) return 0;
                            return null;
                    }
                });
    }

    @Test
    void aClientGoneWhileATooLargeEntityStreamsEndsTheKeyOnceAsNotKept() {
        Decision decision = h2.decide("k-gone");
        assertNotNull(decision.admission());
        JaxrsExchange exchange = new JaxrsExchange(decision.admission(), h2.capture("k-gone"), h2.config.maxResponseBytes, h2.gate.memory(), false);
        JaxrsAccessor jaxrs = writingToAGoneClient(new byte[2048]);
        exchange.responded(jaxrs, "response");

        assertThrows(IOException.class, () -> exchange.write(jaxrs, "writer"), "too large: it streams, and the client is gone");

        assertEquals(1, metrics.completions(AgentMetrics.Completion.NOT_KEPT));
        assertEquals(0, metrics.completions(AgentMetrics.Completion.RELEASED), "the key is not also given up");
        Decision retry = h2.decide("k-gone");
        assertNull(retry.admission(), "a retry does not run the resource again");
        assertEquals(409, retry.answer().status(), "a retry hears that the response was not kept");
    }
}

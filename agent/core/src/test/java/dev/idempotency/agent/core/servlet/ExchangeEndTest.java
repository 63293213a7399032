package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.gate.Decision;
import dev.idempotency.agent.core.gate.H2Gate;
import dev.idempotency.agent.core.gate.IdempotencyGate;
import dev.idempotency.agent.core.gate.PendingDecision;
import dev.idempotency.agent.core.gate.RequestCapture;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How the servlet side ends a keyed request, against an embedded H2 store and a servlet API stood in for by a proxy. */
class ExchangeEndTest {
    private static final String REQUEST = "request";
    private static final String RESPONSE = "response";

    private final H2Gate h2 = new H2Gate("exchange-end");
    private final AgentMetrics metrics = h2.metrics;
    private final AgentConfig config = h2.config;
    private final IdempotencyGate gate = h2.gate;

    @AfterEach
    void close() {
        h2.close();
    }

    private RequestCapture capture(String key) {
        return h2.capture(key);
    }

    private Decision decide(String key) {
        return h2.decide(key);
    }

    /** The servlet API's answers by method name; every other call answers null, false or 0. */
    private static ServletAccessor servletApi(Map<String, Object> answers) {
        return (ServletAccessor) Proxy.newProxyInstance(ExchangeEndTest.class.getClassLoader(), new Class<?>[] {ServletAccessor.class},
                (proxy, method, args) -> {
                    if (answers.containsKey(method.getName())) return answers.get(method.getName());
                    Class<?> type = method.getReturnType();
                    if (type == boolean.class) return false;
                    if (type == int.class) return 0;
                    if (type == long.class) return 0L;
                    return null;
                });
    }

    @Test
    void aClientGoneDuringTheFirstStreamedWriteEndsTheKeyOnceAsNotKept() throws IOException {
        Decision decision = decide("k-gone");
        assertNotNull(decision.admission());
        Map<String, Object> answers = new HashMap<>();
        answers.put("capturingResponse", RESPONSE);
        answers.put("protectedRequest", REQUEST);
        answers.put("status", 200);
        answers.put("outputStream", new OutputStream() {
            @Override public void write(int b) throws IOException { throw new IOException("Broken pipe"); }
        });
        ProtectedExchange exchange = new ProtectedExchange(servletApi(answers), decision.admission(), capture("k-gone"), config.header,
                config.maxResponseBytes, config.retryStatuses, gate.memory(), REQUEST, RESPONSE);

        exchange.write(new byte[512], 0, 512);
        IOException gone = assertThrows(IOException.class, () -> exchange.write(new byte[1024], 0, 1024),
                "too large: the 512 bytes held so far are the first to stream");
        exchange.serviceExited(REQUEST, gone); // the application let the failure through

        assertEquals(1, metrics.completions(AgentMetrics.Completion.NOT_KEPT));
        assertEquals(0, metrics.completions(AgentMetrics.Completion.RELEASED), "the key is not also given up");
        Decision retry = decide("k-gone");
        assertNull(retry.admission(), "a retry does not run the application again");
        assertEquals(409, retry.answer().status(), "a retry hears that the response was not kept");
    }

    /** What the agent logs when a request taken by a filter ends with the status the application's filters gave it. */
    private String logOfARequestEndingUndecided(int status) {
        IdempotentServletHandler handler = new IdempotentServletHandler(config, gate, null, null, null,
                new dev.idempotency.agent.core.telemetry.EndpointInventory(config.required, 10, 100));
        SimpleExchanges.Entry entry = new SimpleExchanges.Entry(servletApi(Collections.singletonMap("status", status)),
                PendingDecision.of(capture("k-" + status)), REQUEST, RESPONSE);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        PrintStream before = AgentLog.writeTo(new PrintStream(log, true));
        try {
            handler.exit(entry, REQUEST, null);
        } finally {
            AgentLog.writeTo(before);
        }
        return new String(log.toByteArray(), StandardCharsets.UTF_8);
    }

    @Test
    void aRequestAFilterAnsweredUnprotectedIsWarnedOf() {
        String log = logOfARequestEndingUndecided(200);
        assertTrue(log.contains("ended without reaching a servlet") && log.contains("idempotency.application-filters"), log);
    }

    @Test
    void aRedirectToALoginPageIsARefusalAndNoWarningNamesTheSecurityFilter() {
        for (int status : new int[] {302, 303, 401, 403}) {
            String log = logOfARequestEndingUndecided(status);
            assertFalse(log.contains("application-filters"), status + ": " + log);
        }
    }
}

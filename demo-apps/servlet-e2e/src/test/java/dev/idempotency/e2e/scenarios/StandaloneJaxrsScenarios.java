package dev.idempotency.e2e.scenarios;

import dev.idempotency.e2e.support.Client;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A JAX-RS runtime on the JDK HttpServer, with no servlet container in front: the JAX-RS layer runs the protocol alone. */
public abstract class StandaloneJaxrsScenarios extends JaxrsOrdersScenarios {

    /** Their containers cannot suspend a request (RESTEasy's answers a suspended resource 204 at once, while its work goes on). */
    @Override
    protected boolean containerSuspendsRequests() {
        return false;
    }

    /** Refused on the declared length alone (max-request-bytes is 64 KiB): not a byte of the body is read or awaited. */
    @Test
    public void aDeclaredLengthBeyondTheLimitIs413BeforeTheBodyIsSent() throws Exception {
        long payments = client.count("payment");
        long start = System.nanoTime();
        // no body follows: were the agent to read it, the server would wait and the socket's timeout would end the test
        Client.RawResponse r = Client.answer(server.port, "POST /api/orders/o-12/payments HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Content-Type: application/json\r\nContent-Length: 3000000000\r\nExpect: 100-continue\r\n"
                + "Idempotency-Key: " + key() + "\r\n\r\n");
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(413, r.status(), r.head() + "\n" + r.body());
        assertTrue(r.body().contains(PROBLEM + "request-too-large"), r.body());
        assertTrue(millis < 10_000, "answered at once, not after a wait for the body: " + millis + " ms");
        assertEquals(payments, client.count("payment"), "the resource did not run");
    }
}

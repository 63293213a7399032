package dev.idempotency.agent.core.inprocess;

import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static dev.idempotency.agent.core.inprocess.Answers.assertReplayOf;
import static dev.idempotency.agent.core.inprocess.Answers.assertWrittenByTheApplication;
import static dev.idempotency.agent.core.inprocess.Answers.text;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The scenarios on embedded Tomcat 10.1, jakarta.servlet. */
class TomcatShopTest extends ShopScenarios {
    @Override
    RunningShop startShop() throws Exception {
        return TomcatShop.start();
    }

    /**
     * Tomcat hands a path that decodes to a line break ({@code %0A}) to a servlet mapped with a wildcard; the agent
     * matches paths as decoded, and such a request once matched no include pattern and ran unprotected.
     */
    @Test
    void aPathThatDecodesToALineBreakIsProtectedToo() throws Exception {
        String ref = fresh();
        String key = fresh();
        String path = "/receipts/a%0Ab?ref=" + ref;
        HttpResponse<byte[]> first = client.post(path, key, ShopClient.JSON, "{\"amount\":5}");
        assertEquals(201, first.statusCode(), text(first));
        assertWrittenByTheApplication(AppLedger.written(ref), first);
        assertReplayOf(first, AppLedger.written(ref), client.post(path, key, ShopClient.JSON, "{\"amount\":5}"));
        assertEquals(1, AppLedger.runs(ref), "a retry must not run the application again");
    }
}

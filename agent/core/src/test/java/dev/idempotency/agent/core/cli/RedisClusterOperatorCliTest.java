package dev.idempotency.agent.core.cli;

import dev.idempotency.store.redis.RedisClusterTestServer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The operator's tool, every case of {@link RedisOperatorCliTest}, on a Redis Cluster; doctor looks at every master. */
class RedisClusterOperatorCliTest extends RedisOperatorCliTest {
    @Override
    protected String url() {
        return RedisClusterTestServer.url();
    }

    @Override
    protected void moveTime(String scope, String key, String field, long seconds) {
        RedisClusterTestServer.setTime(prefix, scope, key, field, seconds);
    }

    @Override
    protected void dropPrefix() {
        RedisClusterTestServer.dropPrefix(prefix);
    }

    @Test
    void doctorLooksAtEveryMasterAndTheClustersState() {
        OperatorCliContract.Run run = cli("", "doctor", "--url", url(), "--table", prefix);
        assertEquals(0, run.exit, run.toString());
        int masters = run.out.split("ok    server", -1).length - 1;
        assertEquals(3, masters, "one server line per master\n" + run);
        assertTrue(run.out.contains("ok    cluster") && run.out.contains("all 16384 slots served by 3 master(s)"),
                run.toString());
    }
}

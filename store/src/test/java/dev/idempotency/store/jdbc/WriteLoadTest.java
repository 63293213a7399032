package dev.idempotency.store.jdbc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteLoadTest {
    @Test
    void writesRunOnTheirOwnUpToTheConnectionsTheLanesLeaveThenJoinBatches() {
        WriteLoad load = new WriteLoad(10, 2); // four connections for the lanes, six for writes on their own
        assertEquals(6, load.unbatched());
        for (int i = 0; i < 6; i++) assertFalse(load.start(), "write " + (i + 1));
        assertTrue(load.start(), "the seventh write at once joins a batch");
        load.end();
        load.end();
        assertFalse(load.start(), "one finished: the next runs on its own again");
    }

    @Test
    void aPoolTheLanesTakeWholeBatchesEveryWrite() {
        assertTrue(new WriteLoad(2, 1).start());
        assertTrue(new WriteLoad(4, 2).start());
    }
}

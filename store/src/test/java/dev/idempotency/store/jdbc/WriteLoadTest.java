package dev.idempotency.store.jdbc;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteLoadTest {
    @Test
    void writesRunOnTheirOwnWhileEachCanHaveAConnectionThenBatchUntilFewerThanTheLanesLeaveFree() {
        WriteLoad load = new WriteLoad(10, 2); // two lanes per kind: eight writes alone, batches below six
        assertEquals(8, load.batchFrom());
        for (int i = 0; i < 8; i++) assertFalse(load.start(), "write " + (i + 1));
        assertTrue(load.start(), "the ninth write at once joins a batch");
        for (int i = 0; i < 3; i++) load.end(); // six in progress
        assertTrue(load.start(), "batching goes on while six or more are in progress");
        for (int i = 0; i < 2; i++) load.end(); // five in progress
        assertFalse(load.start(), "below six the next runs on its own again");
        assertFalse(load.start(), "and so does the one after it, with six in progress");
    }

    @Test
    void aPoolTheLanesTakeWholeBatchesEveryWrite() {
        assertTrue(new WriteLoad(2, 1).start());
        assertTrue(new WriteLoad(4, 2).start());
        WriteLoad load = new WriteLoad(4, 2);
        load.start();
        load.end();
        assertTrue(load.start(), "a lone write too, after others ended");
    }
}

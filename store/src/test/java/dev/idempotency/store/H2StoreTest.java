package dev.idempotency.store;

import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class H2StoreTest extends TransactionRecoveryContract {
    @TempDir
    static Path directory;

    @Override
    protected String url() {
        return "jdbc:h2:file:" + directory.resolve("store").toAbsolutePath();
    }

    @Test
    void aDatabaseOnFileIsNoCaution() {
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings().build())) {
            store.checkSchema();
            assertEquals(List.of(), store.cautions());
        }
    }

    @Test
    void aDatabaseInMemoryIsACautionThatARestartForgetsEveryKey() {
        String inMemory = "jdbc:h2:mem:caution-" + System.nanoTime() + ";DB_CLOSE_DELAY=-1";
        try (JdbcIdempotencyStore store = JdbcIdempotencyStore.open(settings().url(inMemory).build())) {
            store.checkSchema();
            List<String> cautions = store.cautions();
            assertEquals(1, cautions.size(), cautions.toString());
            assertTrue(cautions.get(0).startsWith("an H2 database in memory forgets every key when its JVM stops"), cautions.get(0));
        }
    }
}

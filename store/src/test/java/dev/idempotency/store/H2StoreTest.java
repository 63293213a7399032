package dev.idempotency.store;

import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

class H2StoreTest extends TransactionRecoveryContract {
    @TempDir
    static Path directory;

    @Override
    protected String url() {
        return "jdbc:h2:file:" + directory.resolve("store").toAbsolutePath();
    }
}

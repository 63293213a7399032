package dev.idempotency.store;

import dev.idempotency.store.testing.TestDatabase;

class PostgresOutageTest extends StoreOutageContract {
    @Override
    protected TestDatabase database() { return TestDatabase.postgres(); }
}

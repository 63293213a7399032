package dev.idempotency.store;

import dev.idempotency.store.testing.TestDatabase;

class MariaDbOutageTest extends StoreOutageContract {
    @Override
    protected TestDatabase database() { return TestDatabase.mariadb(); }
}

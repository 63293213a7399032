package dev.idempotency.e2e;

import dev.idempotency.e2e.scenarios.PaymentsScenarios;
import dev.idempotency.e2e.servers.ServerProcess;
import dev.idempotency.e2e.servers.TomcatServer;
import dev.idempotency.store.testing.TestDatabase;
import org.junit.jupiter.api.AfterAll;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;

/** The whole servlet suite on stock Tomcat 9 with the key table in PostgreSQL time partitions (hourly). */
public class Tomcat9PartitionedPostgresIT extends PaymentsScenarios {
    private TestDatabase db;
    private final String table = "e2e_parts_" + Long.toHexString(System.nanoTime());

    @Override
    protected ServerProcess server() throws Exception {
        db = TestDatabase.postgres();
        ServerProcess tomcat = TomcatServer.tomcat9()
                .set("idempotency.store.url", db.url)
                .set("idempotency.store.table", table)
                .set("idempotency.store.partitioning", "hourly");
        if (db.user != null) tomcat.set("idempotency.store.user", db.user).set("idempotency.store.password", db.password);
        return tomcat;
    }

    @AfterAll
    public void dropTable() throws Exception {
        if (db == null) return;
        try (Connection c = DriverManager.getConnection(db.url, db.user, db.password); Statement s = c.createStatement()) {
            PartitionedPurgeTomcat9IT.dropPartitionedTable(s, table);
        }
    }
}

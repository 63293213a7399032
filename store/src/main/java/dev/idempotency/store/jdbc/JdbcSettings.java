package dev.idempotency.store.jdbc;

import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.dialect.Dialect;

/**
 * What the JDBC stores refuse of a configuration before anything connects. Apart from the store itself so that the
 * agent's start-up, which checks its settings in the premain, loads no more than the dialect.
 */
public final class JdbcSettings {
    private JdbcSettings() {
    }

    /** Why these settings cannot open a JDBC store (null: they can); worded as for a store setting. */
    public static String refusal(StoreSettings settings) {
        Dialect dialect = Dialect.forUrl(settings.url());
        if (settings.replicaAcks() > 0) {
            return "store setting 'replica-acks' applies to a Redis store only; the store is " + dialect.name() + " ("
                    + settings.redactedUrl() + "), whose commits are as durable as the database makes them (a "
                    + "synchronous standby, for instance); leave it at 0";
        }
        if (settings.partitioning() != null && !dialect.partitionsByTime()) {
            return "store setting 'partitioning' applies to a PostgreSQL store only; the store is " + dialect.name() + " ("
                    + settings.redactedUrl() + "); leave it unset";
        }
        return null;
    }
}

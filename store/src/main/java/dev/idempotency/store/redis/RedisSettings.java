package dev.idempotency.store.redis;

import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;

/**
 * What the Redis store refuses of a configuration before anything connects. Apart from the store so that the agent's
 * premain checks its settings without loading the client library.
 */
public final class RedisSettings {
    private RedisSettings() {
    }

    /** Why these settings cannot open a Redis store (null: they can); worded as for a store setting. */
    public static String refusal(StoreSettings settings) {
        try {
            RedisEndpoint.of(settings);
        } catch (StoreConfigurationException e) {
            return e.getMessage();
        }
        if (settings.expiredLeasePolicy() == ExpiredLeasePolicy.TRANSACTION) {
            // Effect marks are written inside the application's own database transaction; Redis is not that database.
            return "setting 'recovery' is 'transaction', which needs effect marks committed inside the application's "
                    + "own database transaction, so a JDBC store on that database; the Redis store ("
                    + settings.redactedUrl() + ") takes recovery 'reconcile' or 'retry'";
        }
        if (settings.driverPath() != null) {
            return "store setting 'driver-path' applies to a JDBC store only; the store is Redis ("
                    + settings.redactedUrl() + "); leave it unset";
        }
        if (settings.partitioning() != null) {
            return "store setting 'partitioning' applies to a PostgreSQL store only; the store is Redis ("
                    + settings.redactedUrl()
                    + "), whose keys the purge deletes one by one by their due time; leave it unset";
        }
        return null;
    }
}

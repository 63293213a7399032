package dev.idempotency.store.families;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.DriverLoaders;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.jdbc.JdbcSettings;
import dev.idempotency.store.redis.RedisIdempotencyStore;
import dev.idempotency.store.redis.RedisSettings;

/**
 * The store module's front door: which implementation a store URL names, what it refuses of the settings before
 * anything connects, and opening it. The agent's request path reaches a store only through here and the API
 * ({@link IdempotencyStore}), so another family of stores plugs in at this one place.
 */
public final class StoreFamilies {
    private StoreFamilies() {
    }

    /**
     * Why {@code settings} cannot open a store of the family their URL names, worded as for a store setting
     * ({@code store setting 'partitioning' ...}); null when they can. Connects to nothing and loads no store class,
     * so the agent's premain can check its settings cheaply.
     */
    public static String refusal(StoreSettings settings) {
        return redis(settings.url()) ? RedisSettings.refusal(settings) : JdbcSettings.refusal(settings);
    }

    /**
     * Opens (and, as the settings say, creates or checks) the store the settings' URL names. Only that family's classes
     * are loaded: a JDBC store never loads the Redis client, nor a Redis store the JDBC pool and drivers.
     */
    public static IdempotencyStore open(StoreSettings settings) {
        return redis(settings.url()) ? RedisIdempotencyStore.open(settings) : JdbcIdempotencyStore.open(settings);
    }

    /**
     * Whether a class loader is one the store made for the JDBC driver of its driver path
     * ({@link StoreSettings#driverPath()}): what it loads is the store's, never an application's.
     */
    public static boolean isDriverLoader(ClassLoader loader) {
        return DriverLoaders.made(loader);
    }

    /** Whether a URL names the Redis family: decided here, so that a JDBC store loads no class of the Redis family. */
    private static boolean redis(String url) {
        return StoreSettings.isRedisUrl(url);
    }
}

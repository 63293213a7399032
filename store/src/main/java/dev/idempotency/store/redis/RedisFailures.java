package dev.idempotency.store.redis;

import dev.idempotency.store.OwnershipToken;
import dev.idempotency.store.StoreDataException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreUnavailableException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;

import java.net.SocketTimeoutException;

/**
 * What a Redis client failure means for the store: the server away, slow or refusing writes is a {@link
 * StoreUnavailableException} (503, and a write sent without an answer may have happened); an error answer that no
 * operator setting explains is a {@link StoreDataException}. Messages name the endpoint, never its credentials.
 */
final class RedisFailures {
    private final RedisEndpoint endpoint;

    RedisFailures(RedisEndpoint endpoint) {
        this.endpoint = endpoint;
    }

    /**
     * A slot's keys split between two nodes while it migrates: TRYAGAIN for a command's declared keys; for a key a
     * per-bucket script reads without declaring it (a key hash found through an index), the script stops with an
     * error at that key. ASK is not followed: ASKING covers one command, and a script run on the importing node would
     * read the hashes not moved yet as missing. Either way the work is tried again once the migration moved on; a
     * per-bucket script's earlier deletions stand, and it finds them done.
     */
    static boolean inMigration(String message) {
        return message.startsWith("TRYAGAIN") || message.contains("access a non local key");
    }

    StoreUnavailableException cannotConnect(String operation, Throwable cause, OwnershipToken writing) {
        return new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable: cannot connect for "
                + operation + ": " + describe(cause), cause, writing);
    }

    /** Sent, and no answer (timeout, broken connection): the write may have happened. */
    StoreUnavailableException unavailable(String operation, JedisException e, OwnershipToken writing) {
        return new StoreUnavailableException("idempotency store (" + endpoint + ") unavailable during " + operation
                + ": " + describe(e), e, writing);
    }

    /** No free connection in the pool within the connect timeout: the store is busy, not away. */
    static boolean poolExhausted(Throwable e) {
        return causedBy(e, java.util.NoSuchElementException.class);
    }

    static boolean timedOut(Throwable e) {
        return causedBy(e, SocketTimeoutException.class);
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> kind) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (kind.isInstance(c)) return true;
        }
        return false;
    }

    /** The server answered with an error: nothing was written (a script's error aborts it before any write). */
    StoreException refused(String operation, JedisDataException e) {
        String message = String.valueOf(e.getMessage());
        String code = message.contains(" ") ? message.substring(0, message.indexOf(' ')) : message;
        switch (code) {
            case "OOM": // maxmemory reached under noeviction: writes refused until memory is freed
            case "READONLY": // a replica, or a master demoted by a failover
            case "LOADING":
            case "BUSY":
            case "MASTERDOWN":
            case "MISCONF": // persistence failing with stop-writes-on-bgsave-error
            case "NOREPLICAS": // min-replicas-to-write unmet
            case "CLUSTERDOWN":
            case "TRYAGAIN":
            case "NOAUTH":
            case "WRONGPASS":
            case "NOPERM":
                return new StoreUnavailableException("idempotency store (" + endpoint + ") refused " + operation
                        + ": " + message, e);
            default:
                return new StoreDataException("idempotency store (" + endpoint + ") failed " + operation + ": "
                        + message
                        + " (a key of another shape under the store's prefix?)", e);
        }
    }

    /** The failure and those of its causes that add something (clients often repeat a cause's message as their own). */
    static String describe(Throwable e) {
        StringBuilder s = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            String m = c.getMessage();
            if (m == null || !s.toString().contains(m)) s.append(" (").append(c).append(')');
        }
        return s.toString();
    }

}

package dev.idempotency.agent.core.lifecycle;

import dev.idempotency.agent.core.threads.AgentThreads;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.families.StoreFamilies;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Opens the store lazily, on the agent's own thread (drivers initialise there, never on an application thread or
 * during the host's start-up), and starts the lease heartbeat and the housekeeping once it is open.
 */
public final class StoreLifecycle {
    private final StoreSettings settings;
    private static final int SHUTDOWN_WAIT_SECONDS = 30;
    private static final int FIRST_CONNECTION_SECONDS = 60;
    private static final int SETTLE_MILLIS = 200;
    /**
     * How long a keyed request waits for a store that is still opening (only while it opens for the first time, or
     * again after a failed opening) before it is answered 503: an embedded database on a busy machine can take seconds.
     */
    private static final int OPENING_WAIT_SECONDS = 15;

    private final Duration sweepInterval;
    private final ScheduledExecutorService opener = AgentThreads.single("store");
    private volatile Future<IdempotencyStore> opening;
    private volatile IdempotencyStore store;
    private volatile LeaseHeartbeat heartbeat;

    private final AgentMetrics metrics;

    public StoreLifecycle(StoreSettings settings, Duration sweepInterval, AgentMetrics metrics) {
        this.settings = settings;
        this.sweepInterval = sweepInterval;
        this.metrics = metrics;
    }

    /** Deletes expired keys now (an operator's JMX operation); opens the store if need be. */
    public int purgeNow() {
        return store().purgeExpired();
    }

    /** Applies the expired-lease policy now (an operator's JMX operation). */
    public int sweepNow() {
        int expired = store().sweepExpiredLeases();
        metrics.leasesExpired(expired);
        return expired;
    }

    /** The open store; opens it on first use. Throws {@link StoreException} when it cannot be had in bounded time. */
    public IdempotencyStore store() {
        IdempotencyStore s = store;
        if (s != null) return s;
        Future<IdempotencyStore> f = startOpening();
        try {
            return f.get(OPENING_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new dev.idempotency.store.StoreUnavailableException("the idempotency store is still opening", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new dev.idempotency.store.StoreUnavailableException("interrupted while opening the idempotency store", e);
        } catch (ExecutionException e) {
            synchronized (this) {
                opening = null; // try again on the next request
            }
            Throwable cause = e.getCause();
            if (cause instanceof StoreException) throw (StoreException) cause;
            throw new StoreException("the idempotency store could not be opened: " + cause, cause);
        }
    }

    /** Starts opening the store on the agent's thread, so that the first keyed request does not wait for it. */
    public void openInBackground() {
        if (store == null) startOpening();
    }

    public LeaseHeartbeat heartbeat() {
        store();
        return heartbeat;
    }

    /** The installation's secret, shared by every node of the store (the store keeps it after first reading it). */
    public byte[] installationSecret() {
        return store().installationSecret();
    }

    /** A reservation whose answer was lost is given up as soon as the store answers again. */
    public void releaseLater(dev.idempotency.store.OwnershipToken token) {
        LeaseHeartbeat h = heartbeat;
        if (token != null && h != null) h.releaseWhenReachable(token);
    }

    /**
     * At JVM exit the container finishes its in-flight requests in its own shutdown hook: the store stays open until
     * they are recorded (bounded), then closes cleanly.
     */
    private static void closeAfterRunningRequests(IdempotencyStore store, LeaseHeartbeat heartbeat) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SHUTDOWN_WAIT_SECONDS);
        try {
            // A request stops renewing just before its response is recorded: look twice, a moment apart, so that one
            // caught between the two steps is not cut off.
            do {
                while (heartbeat.hasUnfinishedRequests() && System.nanoTime() - deadline < 0) Thread.sleep(20);
                Thread.sleep(SETTLE_MILLIS);
            } while (heartbeat.hasUnfinishedRequests() && System.nanoTime() - deadline < 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (heartbeat.hasUnfinishedRequests()) AgentLog.warn("JVM exit: keyed requests still running after " + SHUTDOWN_WAIT_SECONDS + "s; closing the store");
        try {
            store.close();
        } catch (RuntimeException e) {
            AgentLog.debug("closing the store at exit failed: " + e);
        }
    }

    private synchronized Future<IdempotencyStore> startOpening() {
        if (opening == null) opening = opener.submit(this::open);
        return opening;
    }

    /**
     * The first connection loads and initialises the driver (an embedded database opens its files), which can outlast
     * the connect timeout meant for a running store, above all in a JVM still starting, on a busy machine or beside
     * another agent. The pool keeps trying in the background, so the opening waits for it, up to a bound; requests
     * meanwhile wait their own bounded time and are answered 503 (fail closed) if it is not open by then.
     */
    private void firstConnection(IdempotencyStore store) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FIRST_CONNECTION_SECONDS);
        for (int attempt = 1; ; attempt++) {
            try {
                store.checkSchema();
                if (attempt > 1) AgentLog.info("the store answered its first connection at attempt " + attempt);
                return;
            } catch (dev.idempotency.store.StoreUnavailableException e) {
                if (System.nanoTime() - deadline > 0) throw e;
                if (attempt == 1) AgentLog.warn("the store did not answer its first connection in time; still trying: " + e.getMessage());
            }
        }
    }

    private IdempotencyStore open() {
        IdempotencyStore opened = StoreFamilies.open(settings);
        try {
            firstConnection(opened);
        } catch (RuntimeException e) {
            opened.close();
            AgentLog.error("idempotency store " + settings.redactedUrl() + " is not usable: " + e.getMessage());
            throw e;
        }
        heartbeat = new LeaseHeartbeat(opened, settings.lease(), metrics::heartbeatFailed);
        LeaseHeartbeat beating = heartbeat;
        metrics.keysInFlightFrom(beating::runningCount);
        metrics.storeConnectionsInUseFrom(opened::connectionsInUse);
        Housekeeper.start(opened, sweepInterval, metrics::leasesExpired, metrics::storeReachable);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeAfterRunningRequests(opened, heartbeat), "idempotency-agent-shutdown"));
        AgentLog.info("store open: " + opened.dialectName() + " " + settings.redactedUrl() + ", table " + settings.table());
        for (String caution : opened.cautions()) AgentLog.warn("store: " + caution);
        store = opened;
        return opened;
    }
}

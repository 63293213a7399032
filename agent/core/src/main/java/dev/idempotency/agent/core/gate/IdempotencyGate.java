package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.bootstrap.bridge.CapturedPart;
import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.agent.core.protocol.BoundedBody;
import dev.idempotency.agent.core.protocol.Credentials;
import dev.idempotency.agent.core.protocol.FormBody;
import dev.idempotency.agent.core.protocol.IdempotencyKeyParser;
import dev.idempotency.agent.core.protocol.MediaType;
import dev.idempotency.agent.core.protocol.MultipartBody;
import dev.idempotency.agent.core.protocol.Problem;
import dev.idempotency.agent.core.protocol.ReplayHeaders;
import dev.idempotency.agent.core.protocol.TenantMode;
import dev.idempotency.agent.core.protocol.TenantScope;
import dev.idempotency.agent.core.lifecycle.StoreLifecycle;
import dev.idempotency.agent.core.telemetry.AgentMetrics;
import dev.idempotency.agent.core.telemetry.Outcome;
import dev.idempotency.store.KeyReservations;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreUnavailableException;
import dev.idempotency.store.StoredResponse;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where a keyed request is taken and decided, whatever transport brought it (servlet or JAX-RS), in two steps: at the
 * request's outermost entry the key is validated and the body read ({@link #capture}); at the last point before the
 * application's code, after its authentication, the scope is derived and the key reserved ({@link #decide}), which
 * says whether the application runs or what the agent answers instead.
 */
public final class IdempotencyGate {
    /** A refused body of up to this many declared bytes is read and dropped before the 413 (see drainSmall). */
    static final long DRAINED_UP_TO = 1 << 20;

    /** Opens the request body; called at most once. */
    public interface Body {
        InputStream open() throws IOException;
    }

    private final AgentConfig config;
    private final StoreLifecycle lifecycle;
    private final IdempotencyKeyParser keys;
    private final TenantScope tenants;
    private final RateLimitedLog openWarnings = new RateLimitedLog(10_000);
    private final AgentMetrics metrics;
    private final MemoryBudget memory;
    private final InFlightWaits inFlightWaits;

    public IdempotencyGate(AgentConfig config, StoreLifecycle lifecycle, AgentMetrics metrics) {
        this.config = config;
        this.memory = new MemoryBudget(config.memoryBudgetBytes);
        this.inFlightWaits = new InFlightWaits(!config.inFlightWait.isZero());
        metrics.memoryFrom(memory::used, memory.limit());
        metrics.waitingForHolderFrom(inFlightWaits::waiting);
        this.lifecycle = lifecycle;
        this.metrics = metrics;
        this.keys = new IdempotencyKeyParser(config.keyMaxLength);
        this.tenants = new TenantScope(config.tenant, lifecycle::installationSecret);
    }

    /** Duplicates waiting for their key's holder ({@code idempotency.on-in-flight=wait:…}). */
    InFlightWaits inFlightWaits() { return inFlightWaits; }

    /** What keyed requests' bodies and buffered responses may hold at once. */
    public MemoryBudget memory() { return memory; }

    /** The answer for a handled request without a key on a path or route where one is required. */
    public Answer keyMissing(String method) {
        metrics.count(Outcome.BAD_KEY);
        return Answer.problem(Problem.KEY_MISSING, "This endpoint requires an " + config.header + " header on " + method + " requests.", null);
    }

    /**
     * Step one, at the outermost entry: the key and the body. Everything the client got wrong is refused here (400,
     * 413), before any application code; nothing is reserved yet.
     *
     * @param path the normalised path
     */
    public RequestCapture capture(String method, String path, String query, String contentType, List<String> keyFields,
                                  Body body, long declaredLength) {
        RequestCapture capture = read(method, path, query, contentType, keyFields, body, declaredLength);
        if (capture.problem() != null) metrics.count(capture.refusal());
        return capture;
    }

    private RequestCapture read(String method, String path, String query, String contentType, List<String> keyFields,
                                Body body, long declaredLength) {
        IdempotencyKeyParser.Result key = keys.parse(keyFields);
        if (!key.valid()) return RequestCapture.refused(method, path, Outcome.BAD_KEY, Answer.problem(Problem.KEY_INVALID, key.problem() + ".", null));
        boolean form = FormBody.isForm(contentType);
        boolean multipart = MultipartBody.isMultipart(contentType);
        String charset = MediaType.parameter(contentType, "charset");
        if ((form || multipart) && !MediaType.charsetSupported(charset)) {
            return RequestCapture.refused(method, path, Outcome.UNREADABLE, Answer.problem(Problem.REQUEST_UNREADABLE,
                    "The request's charset '" + charset + "' is not supported, so its form fields cannot be read.", null));
        }
        if (declaredLength > config.maxRequestBytes) {
            drainSmall(body, declaredLength);
            return tooLarge(method, path);
        }
        // A body of known length is charged before a byte of it is read; one of unknown length once it is read.
        MemoryBudget.Charge charge = declaredLength > 0 ? memory.admit(declaredLength, config.memoryWait.toNanos()) : null;
        if (declaredLength > 0 && charge == null) return overBudget(method, path);
        boolean kept = false;
        try {
            RequestCapture capture = readBody(method, path, query, contentType, key.key(), multipart, body, declaredLength, charge);
            kept = capture.problem() == null;
            return capture;
        } finally {
            if (!kept && charge != null) charge.release(); // refused, or failed: nothing holds the body
        }
    }

    /**
     * A client that did not ask to wait sends the whole body however early the 413 comes, and a container that closes the
     * connection with bytes of it unread resets it, often before the client read the answer (seen on Jetty 9.4 and
     * RESTEasy's standalone server with a 70 KiB body). So a refused body of up to {@link #DRAINED_UP_TO} bytes is read and
     * dropped first; a larger one is refused unread (a client that sends such bodies should send Expect: 100-continue).
     */
    private static void drainSmall(Body body, long declaredLength) {
        if (declaredLength > DRAINED_UP_TO) return;
        try {
            InputStream in = body.open();
            byte[] buffer = new byte[8192];
            long left = declaredLength;
            int n;
            while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) left -= n;
        } catch (IOException | RuntimeException e) {
            // the client went away or the container refused: the 413 is sent all the same
        }
    }

    private RequestCapture readBody(String method, String path, String query, String contentType, String key, boolean multipart,
                                    Body body, long declaredLength, MemoryBudget.Charge admitted) {
        MemoryBudget.Charge charge = admitted;
        byte[] bytes;
        try {
            bytes = BoundedBody.read(body.open(), config.maxRequestBytes, declaredLength);
        } catch (BoundedBody.TooLargeException e) {
            return tooLarge(method, path);
        } catch (IOException e) {
            return RequestCapture.refused(method, path, Outcome.UNREADABLE, Answer.problem(Problem.REQUEST_UNREADABLE, "The request body could not be read: " + e.getMessage(), null));
        }
        List<CapturedPart> parts = null;
        if (multipart) {
            try {
                parts = MultipartBody.parse(bytes, contentType);
            } catch (MultipartBody.MalformedException e) {
                return RequestCapture.refused(method, path, Outcome.UNREADABLE, Answer.problem(Problem.REQUEST_UNREADABLE, "The multipart body is malformed: " + e.getMessage() + ".", null));
            }
        }
        if (charge == null && bytes.length > 0) { // a body of unknown length, charged now that it is read and parsed
            charge = memory.admit(bytes.length, config.memoryWait.toNanos());
            if (charge == null) return overBudget(method, path);
        }
        RequestCapture capture = RequestCapture.of(method, path, query, contentType, key, bytes, parts, charge);
        if (charge != null) charge.heldBy(capture);
        return capture;
    }

    private RequestCapture tooLarge(String method, String path) {
        return RequestCapture.refused(method, path, Outcome.TOO_LARGE, Answer.problem(Problem.REQUEST_TOO_LARGE, "Requests with an "
                + config.header + " may carry at most " + config.maxRequestBytes + " bytes.", null));
    }

    /** Refused before the body is read (or kept): the agent holds as many bodies as its memory budget allows. */
    private RequestCapture overBudget(String method, String path) {
        return RequestCapture.refused(method, path, Outcome.OVER_BUDGET, Answer.problem(Problem.AGENT_BUSY, "The idempotency agent"
                + " held as many request bodies as its memory budget allows for longer than " + config.memoryWait.toMillis()
                + " ms, so this request was not processed. Retry later with the same " + config.header + ".", "1"));
    }

    /**
     * Step two, where the application's code would start: derive the scope from who the request is (now that the
     * application's authentication has run), reserve the key, and say what happens.
     *
     * @param route the matched route template when the transport knows it (JAX-RS), else null; for diagnostics only
     */
    public Decision decide(RequestCapture capture, Credentials who, String route) {
        Decision decision = reserve(capture, who, route);
        metrics.count(decision.outcome());
        return decision;
    }

    private Decision reserve(RequestCapture capture, Credentials who, String route) {
        String description = route != null ? route + " (" + capture.path() + ") [" + capture.key() + "]" : capture.description();
        KeyReservations store;
        Reservation reservation;
        String scope;
        try {
            store = lifecycle.store();
            scope = tenants.scopeOf(who);
            reservation = config.inFlightWait.isZero() ? attempt(store, scope, capture) : attemptOrAwaitHolder(store, scope, capture);
        } catch (StoreException e) {
            reservationFailed(e);
            return storeUnavailable(description, e);
        }
        if (AgentLog.isEnabled(AgentLog.Level.DEBUG)) AgentLog.debug(description + " scope " + scope + ": " + reservation.outcome());
        switch (reservation.outcome()) {
            case ACQUIRED:
            case REACQUIRED:
                SessionScope sessions = tenants.mode().kind() == TenantMode.Kind.AUTO
                        ? new SessionScope(tenants, config.credentialCookies, who, scope) : null;
                return Decision.run(new Admission(store, lifecycle.heartbeat(), reservation.token(), description, config,
                        TenantScope.isPersonal(scope), metrics, inFlightWaits, sessions, capture.fingerprint()));
            case REPLAY:
                return replay(reservation.response());
            case IN_FLIGHT:
                return Decision.answer(Outcome.IN_FLIGHT, inFlight(reservation.leaseRemainingMillis()));
            case MISMATCH:
                return Decision.answer(Outcome.MISMATCH, Answer.problem(Problem.KEY_REUSED, "This " + config.header
                        + " was already used for a request with a different method, path, query or body.", null));
            case OUTCOME_UNKNOWN:
                return Decision.answer(Outcome.UNKNOWN, outcomeUnknownAnswer(config.header));
            default:
                throw new IllegalStateException("unhandled outcome " + reservation.outcome());
        }
    }

    private Reservation attempt(KeyReservations store, String scope, RequestCapture capture) {
        long start = System.nanoTime();
        Reservation reservation = store.reserve(scope, capture.key(), capture.fingerprint());
        metrics.reserveTook(System.nanoTime() - start);
        metrics.storeReachable(true);
        return reservation;
    }

    /**
     * {@code on-in-flight=wait}: a key found in flight is looked at again when the request of this JVM that holds it ends
     * it, or every so often for a holder elsewhere, until it is no longer in flight or the wait is over (then 409 as
     * without waiting). No connection is held in between. The wait for the key is joined before the first look, so an
     * end between that look and the wait is not missed.
     */
    private Reservation attemptOrAwaitHolder(KeyReservations store, String scope, RequestCapture capture) {
        InFlightWaits.Signal signal = inFlightWaits.join(scope, capture.key());
        try {
            long seen = signal.ends();
            Reservation reservation = attempt(store, scope, capture);
            if (reservation.outcome() != Reservation.Outcome.IN_FLIGHT) return reservation;
            return awaitHolder(store, scope, capture, signal, seen, reservation);
        } finally {
            inFlightWaits.leave(signal);
        }
    }

    private Reservation awaitHolder(KeyReservations store, String scope, RequestCapture capture, InFlightWaits.Signal signal,
                                    long seenBefore, Reservation inFlight) {
        inFlightWaits.waitingStarted();
        try {
            long seen = seenBefore;
            Reservation reservation = inFlight;
            long deadline = System.nanoTime() + config.inFlightWait.toNanos();
            long poll = InFlightWaits.FIRST_POLL_MILLIS;
            while (reservation.outcome() == Reservation.Outcome.IN_FLIGHT) {
                long left = InFlightWaits.millisUntil(deadline);
                if (left <= 0) break;
                boolean local = inFlightWaits.heldHere(scope, capture.key());
                if (!signal.awaitEndAfter(seen, Math.min(left, local ? InFlightWaits.LOCAL_RECHECK_MILLIS : poll))) break;
                // held here and not ended: its end will wake us; nothing to look at (but an abandoned holder stops counting).
                // Asked again after the wait: a holder here may have said so only after this waiter found its key in flight.
                if (signal.ends() == seen && (local || inFlightWaits.heldHere(scope, capture.key()))) continue;
                seen = signal.ends();
                if (!local) poll = Math.min(poll * 2, InFlightWaits.LONGEST_POLL_MILLIS);
                Reservation again = lookAgain(store, scope, capture);
                if (again == null) break; // the store failed this look: the key was in flight, so 409 as without waiting
                reservation = again;
            }
            return reservation;
        } finally {
            inFlightWaits.waitingEnded();
        }
    }

    /** A waiter's next look at its key; null when the store failed it (never a reason to run the application). */
    private Reservation lookAgain(KeyReservations store, String scope, RequestCapture capture) {
        try {
            return attempt(store, scope, capture);
        } catch (StoreException e) {
            reservationFailed(e);
            AgentLog.debug(capture.description() + ": looking again at a key in flight failed: " + e.getMessage());
            return null;
        }
    }

    /** A store that could not be reached may still have taken the reservation: it is given back once it can be. */
    private void reservationFailed(StoreException e) {
        if (e instanceof StoreUnavailableException) {
            metrics.storeReachable(false);
            lifecycle.releaseLater(((StoreUnavailableException) e).possiblyReserved());
        }
    }

    private Answer inFlight(long leaseRemainingMillis) {
        long seconds = Math.max(1, (leaseRemainingMillis + 999) / 1000);
        return Answer.problem(Problem.IN_PROGRESS, "A request with this " + config.header
                + " is still being processed; retry after " + seconds + " seconds.", String.valueOf(seconds));
    }

    /** Also what a request gets whose key was taken over while it ran: its own response can never be replayed. */
    public static Answer outcomeUnknownAnswer(String header) {
        return Answer.problem(Problem.OUTCOME_UNKNOWN, "An earlier request with this " + header
                + " ended without a recorded result, so it may or may not have taken effect. It will not be run again"
                + " automatically; an operator must resolve it.", null);
    }

    /** When the agent itself fails before the application runs: the request is refused, never run unprotected. */
    public Answer agentFault() {
        metrics.count(Outcome.AGENT_FAULT);
        return Answer.problem(Problem.AGENT_FAULT, "The idempotency agent could not process this request, so it was not"
                + " processed. Retry later with the same " + config.header + ".", "2");
    }

    private Decision replay(StoredResponse stored) {
        for (StoredResponse.Header h : stored.headers()) {
            if (h.name().equalsIgnoreCase(ReplayHeaders.NOT_KEPT_MARKER)) {
                String why = BoundedResponseBody.OVER_BUDGET.equals(h.value())
                        ? "came while the agent's memory budget was full, so it was not kept" : "was too large to be kept";
                return Decision.answer(Outcome.NOT_KEPT, Answer.problem(Problem.RESPONSE_NOT_KEPT, "The request with this " + config.header
                        + " was processed (status " + stored.status() + "), but its response " + why + ", so it cannot be"
                        + " replayed. It will not be run again.", null));
            }
        }
        return Decision.answer(Outcome.REPLAYED, Answer.replay(stored));
    }

    private Decision storeUnavailable(String description, StoreException e) {
        if (config.failureMode == AgentConfig.FailureMode.OPEN) {
            openWarnings.run(() -> AgentLog.error(description + ": idempotency store unavailable; failure-mode=open runs requests UNPROTECTED", e));
            return Decision.runUnprotected();
        }
        AgentLog.warn(description + ": idempotency store unavailable, answering 503: " + e.getMessage());
        return Decision.answer(Outcome.STORE_UNAVAILABLE, Answer.problem(Problem.STORE_UNAVAILABLE, "The idempotency store cannot be reached, so the request was"
                + " not processed. Retry later with the same " + config.header + ".", "2"));
    }
}

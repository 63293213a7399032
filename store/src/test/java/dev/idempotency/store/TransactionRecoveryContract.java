package dev.idempotency.store;

import dev.idempotency.store.Reservation.Outcome;
import dev.idempotency.store.jdbc.EffectMarks;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.testing.Await;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ExpiredLeasePolicy#TRANSACTION}: effect marks written in the application's own transactions decide what an
 * expired lease means. The application's transactions here are plain JDBC on the test's own connections.
 */
abstract class TransactionRecoveryContract extends JdbcStoreContract {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration AWAIT = Duration.ofSeconds(10);

    private JdbcIdempotencyStore transactional() {
        return open(settings().lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION));
    }

    private EffectMarks marks() {
        return EffectMarks.forUrl(url(), table());
    }

    /** An application transaction that writes its own row and the owner's mark, committed or rolled back. */
    private boolean applicationTransaction(OwnershipToken owner, boolean commit) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            boolean marked = marks().mark(c, owner, EffectMark.Kind.COMMIT, "commit of the application's order");
            if (commit) c.commit();
            else c.rollback();
            return marked;
        }
    }

    private static Reservation afterExpiry(JdbcIdempotencyStore store, String key) {
        return Await.until("the lease to expire", AWAIT, () -> store.reserve("t", key, "fp"), r -> r.outcome() != Outcome.IN_FLIGHT);
    }

    @Test
    void anOwnerThatDiedWithoutAnyEffectIsRunAgainAndFencedOff() {
        JdbcIdempotencyStore store = transactional();
        Reservation dead = store.reserve("t", "k", "fp");
        Reservation again = afterExpiry(store, "k");
        assertEquals(Outcome.REACQUIRED, again.outcome());
        assertFalse(store.complete(dead.token(), response(201, "zombie")), "the dead owner is fenced off");
        assertTrue(store.complete(again.token(), response(201, "second run")));
        assertEquals("second run", new String(store.reserve("t", "k", "fp").response().body()));
    }

    @Test
    void anOwnerWhoseTransactionCommittedLeavesItsKeyUnknownWithTheReasonAndTime() throws SQLException {
        JdbcIdempotencyStore store = transactional();
        Instant before = store.databaseTime();
        Reservation dead = store.reserve("t", "k", "fp");
        assertTrue(applicationTransaction(dead.token(), true));
        assertEquals(Outcome.OUTCOME_UNKNOWN, afterExpiry(store, "k").outcome());
        assertEquals(Outcome.OUTCOME_UNKNOWN, store.reserve("t", "k", "fp").outcome(), "never re-executed");
        KeyRecord record = store.find("t", "k").get();
        assertEquals(KeyStatus.UNKNOWN, record.status());
        assertEquals(1, record.effects().size(), record.effects().toString());
        EffectMark mark = record.effects().get(0);
        assertEquals(EffectMark.Kind.COMMIT, mark.kind());
        assertEquals("commit of the application's order", mark.detail());
        assertFalse(mark.markedAt().isBefore(before.minusSeconds(1)), mark + " after " + before);
        assertTrue(store.complete(dead.token(), response(201, "late but real")), "a slow owner still records the truth");
    }

    @Test
    void aRolledBackTransactionLeavesNoMarkAndTheKeyRunsAgain() throws SQLException {
        JdbcIdempotencyStore store = transactional();
        Reservation dead = store.reserve("t", "k", "fp");
        assertTrue(applicationTransaction(dead.token(), false));
        assertEquals(Outcome.REACQUIRED, afterExpiry(store, "k").outcome());
    }

    @Test
    void anExternalEffectRecordedByTheStoreLeavesItsKeyUnknown() {
        JdbcIdempotencyStore store = transactional();
        Reservation dead = store.reserve("t", "k", "fp");
        assertTrue(store.recordEffect(dead.token(), EffectMark.Kind.EXTERNAL, "HTTP POST http://psp.example/charges"));
        assertEquals(Outcome.OUTCOME_UNKNOWN, afterExpiry(store, "k").outcome());
        assertEquals("HTTP POST http://psp.example/charges", store.find("t", "k").get().effects().get(0).detail());
    }

    @Test
    void callsThatCarriedADerivedKeyAloneLetTheKeyRunAgainAndAnyOtherMarkDoesNot() {
        JdbcIdempotencyStore store = transactional();
        Reservation keyed = store.reserve("t", "keyed", "fp");
        assertTrue(store.recordEffect(keyed.token(), EffectMark.Kind.KEYED_CALL, "HTTP POST https://api.stripe.com/v1/charges Idempotency-Key: a"));
        assertTrue(store.recordEffect(keyed.token(), EffectMark.Kind.KEYED_CALL, "HTTP POST https://api.stripe.com/v1/refunds Idempotency-Key: b"));
        assertEquals(Outcome.REACQUIRED, afterExpiry(store, "keyed").outcome(), "repeating them repeats nothing");
        Reservation mixed = store.reserve("t", "mixed", "fp");
        assertTrue(store.recordEffect(mixed.token(), EffectMark.Kind.KEYED_CALL, "HTTP POST https://api.stripe.com/v1/charges Idempotency-Key: c"));
        assertTrue(store.recordEffect(mixed.token(), EffectMark.Kind.EXTERNAL, "HTTP POST http://psp.example/charges"));
        assertEquals(Outcome.OUTCOME_UNKNOWN, afterExpiry(store, "mixed").outcome());
        List<EffectMark> marks = store.find("t", "mixed").get().effects(); // marked in the same instant: in either order
        assertEquals(2, marks.size(), "both shown to the operator: " + marks);
        assertTrue(marks.stream().anyMatch(m -> m.kind() == EffectMark.Kind.KEYED_CALL) && marks.stream().anyMatch(m -> m.kind() == EffectMark.Kind.EXTERNAL),
                marks.toString());
    }

    @Test
    void aMarkForATokenThatLostItsKeyIsRefusedSoTheApplicationMustRollBack() throws SQLException {
        JdbcIdempotencyStore store = transactional();
        Reservation dead = store.reserve("t", "k", "fp");
        assertEquals(Outcome.REACQUIRED, afterExpiry(store, "k").outcome());
        assertFalse(applicationTransaction(dead.token(), true), "the stale owner's commit must be refused");
        assertFalse(store.recordEffect(dead.token(), EffectMark.Kind.EXTERNAL, "late call"));
        assertTrue(store.find("t", "k").get().effects().isEmpty(), "the new owner has no marks");
    }

    /**
     * The race the design is about: the application has written its mark and is about to commit when the lease
     * expires and a retry arrives. The retry must wait for that transaction and then see the mark.
     */
    @Test
    void aRetryArrivingWhileTheOwnersTransactionCommitsWaitsForItAndSeesTheMark() throws Exception {
        assertEquals(Outcome.OUTCOME_UNKNOWN, retryRacingTheOwner(transactional(), true));
    }

    /** The same race, with the owner's transaction rolled back: nothing happened, so the retry runs. */
    @Test
    void aRetryWaitingForATransactionThatRollsBackRunsTheRequest() throws Exception {
        assertEquals(Outcome.REACQUIRED, retryRacingTheOwner(transactional(), false));
    }

    /** What a retry decides when it arrives after the lease ran out, while the owner's marked transaction is still open. */
    protected Reservation.Outcome retryRacingTheOwner(JdbcIdempotencyStore store, boolean commit) throws Exception {
        Reservation owner = store.reserve("t", "k", "fp");
        try (Connection application = connect()) {
            application.setAutoCommit(false);
            assertTrue(marks().mark(application, owner.token(), EffectMark.Kind.COMMIT, "commit"));
            Await.until("the lease to run out", AWAIT, this::expiredLeases, n -> n == 1);
            CompletableFuture<Reservation> retry = CompletableFuture.supplyAsync(() -> store.reserve("t", "k", "fp"));
            Await.until("the retry to wait for the owner's transaction", AWAIT, this::lockWaits, n -> n > 0 || retry.isDone());
            assertFalse(retry.isDone(), () -> "the retry decided while the owner's transaction was open: " + retry.join());
            if (commit) application.commit();
            else application.rollback();
            return retry.get().outcome();
        }
    }

    protected JdbcIdempotencyStore transactional(String url) {
        return open(settings().url(url).lease(SHORT).expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION));
    }

    @Test
    void theSweepMakesUnmarkedKeysRetryableAndMarkedOnesUnknown() throws SQLException {
        JdbcIdempotencyStore store = transactional();
        store.reserve("t", "quiet", "fp");
        Reservation busy = store.reserve("t", "busy", "fp");
        assertTrue(applicationTransaction(busy.token(), true));
        int swept = Await.until("both leases to be swept", AWAIT, store::sweepExpiredLeases, n -> n > 0);
        if (swept < 2) swept += Await.until("the second lease to be swept", AWAIT, store::sweepExpiredLeases, n -> n > 0);
        assertEquals(2, swept);
        assertEquals(KeyStatus.RETRYABLE, store.find("t", "quiet").get().status());
        assertEquals(KeyStatus.UNKNOWN, store.find("t", "busy").get().status());
        assertEquals(Outcome.REACQUIRED, store.reserve("t", "quiet", "fp").outcome());
        assertEquals(Outcome.OUTCOME_UNKNOWN, store.reserve("t", "busy", "fp").outcome());
    }

    @Test
    void marksArePurgedWithTheirKeysOutcomeButKeptWhileItIsUnknown() throws SQLException {
        JdbcIdempotencyStore store = open(settings().lease(Duration.ofMillis(500)).ttl(Duration.ofHours(1))
                .expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION));
        Reservation completed = store.reserve("t", "done", "fp");
        assertTrue(applicationTransaction(completed.token(), true));
        assertTrue(store.complete(completed.token(), response(201, "done")));
        Reservation crashed = store.reserve("t", "crashed", "fp");
        assertTrue(applicationTransaction(crashed.token(), true));
        Await.until("the crashed key to become unknown", AWAIT, () -> store.reserve("t", "crashed", "fp").outcome(),
                o -> o == Outcome.OUTCOME_UNKNOWN);
        // Marks younger than a lease are kept whatever their key shows; both are older once the crashed key is unknown.
        Await.until("the completed key's mark to be purged", AWAIT, () -> {
            store.purgeExpired();
            return markCount();
        }, n -> n == 1);
        assertEquals(1, store.find("t", "crashed").get().effects().size(), "the unknown key keeps its reason");
        assertEquals(Outcome.REPLAY, store.reserve("t", "done", "fp").outcome(), "the completed key keeps its response");
        assertTrue(store.resolveForRetry("t", "crashed"));
        Await.until("the resolved key's mark to be purged", AWAIT, () -> {
            store.purgeExpired();
            return markCount();
        }, n -> n == 0);
    }

    @Test
    void aConnectionSeesTheKeyOnlyOnTheStoresDatabase() throws SQLException {
        JdbcIdempotencyStore store = transactional();
        Reservation owner = store.reserve("t", "k", "fp");
        try (Connection same = connect()) {
            assertTrue(marks().seesKey(same, owner.token()));
            same.setAutoCommit(false);
            assertFalse(marks().seesKey(same, new OwnershipToken("t", "k", "another-token")));
            same.commit(); // the probe did not break the transaction it ran in
        }
        try (Connection other = DriverManager.getConnection("jdbc:h2:mem:elsewhere")) {
            other.setAutoCommit(false);
            assertFalse(EffectMarks.forUrl("jdbc:h2:mem:elsewhere", table()).seesKey(other, owner.token()));
            try (Statement s = other.createStatement()) {
                s.execute("CREATE TABLE probe_survives (id INT)"); // the transaction is still usable
            }
            other.rollback();
        }
        assertEquals(null, EffectMarks.forUrl("jdbc:oracle:thin:@db:1521/x", table()), "an unsupported database has no marks");
    }

    @Test
    void validationUnderTransactionRecoveryNeedsTheEffectTable() throws SQLException {
        transactional().checkSchema();
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + table() + "_effects");
        }
        StoreConfigurationException e = assertThrows(StoreConfigurationException.class, () -> open(settings()
                .schemaMode(SchemaMode.VALIDATE).expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION)).checkSchema());
        assertTrue(e.getMessage().contains(table() + "_effects"), e.getMessage());
        open(settings().schemaMode(SchemaMode.VALIDATE)).checkSchema(); // reconcile does not need it
    }

    /** Keys whose lease ran out by the database's clock (a probe that takes no lock and decides nothing). */
    private long expiredLeases() {
        return count("SELECT COUNT(*) FROM " + table() + " WHERE status = 'IN_FLIGHT' AND lease_expires_at <= " + databaseNow());
    }

    private long lockWaits() {
        return count(lockWaitsQuery());
    }

    private long markCount() {
        return count("SELECT COUNT(*) FROM " + table() + "_effects");
    }

    private long count(String query) {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(query); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new AssertionError(e);
        }
    }
}

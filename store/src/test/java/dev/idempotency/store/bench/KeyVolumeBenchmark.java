package dev.idempotency.store.bench;

import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Collections;
import java.util.Random;

/**
 * A PostgreSQL key table holding a busy API's day: millions of completed keys created over the last 24 hours (loaded
 * with one INSERT ... SELECT per million, not through the store), then, at each size, the table's size and the latency
 * of new reservations and replays through the store; at the end, the purge of an expired day-part and what it leaves
 * behind. A benchmark to rerun by hand (store/bench/volume.sh), not a test.
 *
 * <p>Arguments: JDBC URL, key counts (comma separated, default 1000000,5000000,10000000), response body bytes (default
 * 300), expired keys to purge at the end (default 1000000), partitioning (none, the default, hourly, daily, or a width
 * in seconds). With partitions, the loaded keys go to the partitions of their creation time, made by the benchmark as
 * the store names them, and the purge drops the partitions whose keys all expired.
 */
public final class KeyVolumeBenchmark {
    private static final String TABLE = "idempotency_volume";
    private static final int SAMPLES = 2000;
    private static final int LOAD_CHUNK = 1_000_000;

    public static void main(String[] args) throws Exception {
        String url = args.length > 0 ? args[0] : "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
        long[] sizes = Arrays.stream((args.length > 1 ? args[1] : "1000000,5000000,10000000").split(",")).mapToLong(Long::parseLong).toArray();
        int bodyBytes = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        long expired = args.length > 3 ? Long.parseLong(args[3]) : 1_000_000;
        long day = sizes[sizes.length - 1];
        String layout = args.length > 4 ? args[4] : "none";
        long width = layout.equals("none") ? 0 : layout.equals("hourly") ? 3600 : layout.equals("daily") ? 86400 : Long.parseLong(layout);

        try (Connection sql = DriverManager.getConnection(url);
             JdbcIdempotencyStore store = JdbcIdempotencyStore.open(StoreSettings.builder().url(url).table(TABLE)
                     .partitioning(width == 0 ? null : java.time.Duration.ofSeconds(width)).build())) {
            try (Statement s = sql.createStatement()) {
                for (String suffix : new String[] {"", "_secret", "_effects", "_schema"}) s.execute("DROP TABLE IF EXISTS " + TABLE + suffix + " CASCADE");
                s.execute("DROP FUNCTION IF EXISTS " + TABLE + "_vacant(VARCHAR, VARCHAR)");
                s.execute("DROP FUNCTION IF EXISTS " + TABLE + "_partition_seconds()");
            }
            store.checkSchema();
            if (width > 0) createPastPartitions(sql, width);
            byte[] body = new byte[bodyBytes];
            Arrays.fill(body, (byte) 'x');
            StoredResponse response = new StoredResponse(201,
                    Collections.singletonList(new StoredResponse.Header("Content-Type", "application/json")), body);
            System.out.printf("key volume on %s (%s): a day of %d keys, %d-byte bodies%n%n", store.dialectName(),
                    width == 0 ? "one plain table" : "partitions " + width + " s wide", day, bodyBytes);
            System.out.println("| keys | table + indexes MB | of which indexes MB | load s | new key p50 ms | p99 ms | replay p50 ms | p99 ms |");
            System.out.println("|---:|---:|---:|---:|---:|---:|---:|---:|");
            long loaded = 0;
            for (long size : sizes) {
                long start = System.nanoTime();
                while (loaded < size) {
                    long chunk = Math.min(LOAD_CHUNK, size - loaded);
                    load(sql, loaded, chunk, day, bodyBytes, false, width);
                    loaded += chunk;
                }
                double loadSeconds = (System.nanoTime() - start) / 1e9;
                vacuumAnalyze(sql);
                double[] fresh = newKeys(store, response, "size-" + size);
                double[] replays = replays(store, loaded);
                System.out.printf("| %,d | %.0f | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |%n", size, megabytes(sql, "pg_total_relation_size"),
                        megabytes(sql, "pg_indexes_size"), loadSeconds, fresh[0], fresh[1], replays[0], replays[1]);
            }

            // The oldest part of yesterday, expired, beside today's keys; then the store's purge.
            load(sql, loaded, expired, day, bodyBytes, true, width);
            vacuumAnalyze(sql);
            double sizeBefore = megabytes(sql, "pg_total_relation_size");
            long start = System.nanoTime();
            int purged = store.purgeExpired(n -> { });
            double purgeSeconds = (System.nanoTime() - start) / 1e9;
            long dead = scalar(sql, "SELECT COALESCE(SUM(n_dead_tup), 0) FROM pg_stat_user_tables WHERE relid IN " + TABLE_AND_PARTITIONS);
            double[] afterPurge = newKeys(store, response, "after-purge");
            double sizeAfterPurge = megabytes(sql, "pg_total_relation_size");
            long vacuumStart = System.nanoTime();
            vacuumAnalyze(sql);
            double vacuumSeconds = (System.nanoTime() - vacuumStart) / 1e9;
            double sizeAfterVacuum = megabytes(sql, "pg_total_relation_size");
            System.out.printf("%npurge of %,d expired keys beside %,d live ones: %,d %s in %.1f s (%.0f keys/s), %,d dead rows"
                            + " left; new key p50 %.2f ms p99 %.2f ms right after; size %.0f MB before, %.0f MB after the purge,"
                            + " %.0f MB after VACUUM (%.1f s)%s%n",
                    expired, loaded, purged, width == 0 ? "deleted" : "dropped with their partitions", purgeSeconds,
                    purged / purgeSeconds, dead, afterPurge[0], afterPurge[1], sizeBefore, sizeAfterPurge, sizeAfterVacuum,
                    vacuumSeconds, width == 0 ? "" : "; " + scalar(sql, "SELECT COUNT(*) FROM pg_inherits WHERE inhparent = CAST('"
                            + TABLE + "' AS regclass)") + " partitions left");
        }
    }

    /**
     * Completed keys {@code from} to {@code from + count}, created evenly over the last day (or, {@code expired}, the day
     * before, past their expiry), in tenant scopes, with fingerprints, headers and a body as the store writes them.
     */
    private static void load(Connection sql, long from, long count, long day, int bodyBytes, boolean expired, long width) throws Exception {
        String created = expired ? "now() - interval '48 hours' + (i - " + from + ") * (interval '24 hours' / " + Math.max(1, count) + ") / 10"
                : "now() - interval '23 hours' + i * (interval '23 hours' / " + day + ")"; // the oldest expire an hour after the run starts
        try (PreparedStatement ps = sql.prepareStatement("INSERT INTO " + TABLE + " (scope, idem_key, fingerprint, status, owner_token,"
                + " response_status, response_headers, response_body, attempts, created_at, updated_at, expires_at"
                + (width == 0 ? "" : ", part_at") + ")"
                + " SELECT 'tenant-' || (i % 1000), 'key-' || md5(i::text), 'sha256:' || md5(i::text) || md5((i + 1)::text),"
                + " 'COMPLETED', md5((i + 2)::text), 201, '[[\"Content-Type\",\"application/json\"]]', ?, 1, c, c,"
                + " c + interval '24 hours'"
                + (width == 0 ? "" : ", to_timestamp(floor(extract(epoch FROM c) / " + width + ") * " + width + ")")
                + " FROM (SELECT i, " + created + " AS c FROM generate_series(?::bigint, ?::bigint) i) g")) {
            byte[] body = new byte[bodyBytes];
            Arrays.fill(body, (byte) 'x');
            ps.setBytes(1, body);
            ps.setLong(2, from);
            ps.setLong(3, from + count - 1);
            ps.executeUpdate();
        }
    }

    /**
     * The partitions of the last 50 hours, named as the store names its own (it makes only the current one and a few
     * ahead): the loaded keys were created in them.
     */
    private static void createPastPartitions(Connection sql, long width) throws Exception {
        java.time.format.DateTimeFormatter name = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd't'HHmmss")
                .withZone(java.time.ZoneOffset.UTC);
        java.time.format.DateTimeFormatter bound = java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'+00'")
                .withZone(java.time.ZoneOffset.UTC);
        long now = scalar(sql, "SELECT CAST(extract(epoch FROM now()) AS BIGINT)");
        try (Statement s = sql.createStatement()) {
            for (long start = Math.floorDiv(now - 50 * 3600, width) * width; start < Math.floorDiv(now, width) * width; start += width) {
                java.time.Instant from = java.time.Instant.ofEpochSecond(start);
                java.time.Instant to = java.time.Instant.ofEpochSecond(start + width);
                s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + "_p" + name.format(from) + " PARTITION OF " + TABLE
                        + " FOR VALUES FROM ('" + bound.format(from) + "') TO ('" + bound.format(to) + "')");
            }
        }
    }

    /** p50 and p99 in ms of reserving and completing new keys, one after another. */
    private static double[] newKeys(JdbcIdempotencyStore store, StoredResponse response, String prefix) {
        long[] took = new long[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            long start = System.nanoTime();
            Reservation r = store.reserve("tenant-new", prefix + "-" + i, "fp");
            store.complete(r.token(), response);
            took[i] = System.nanoTime() - start;
        }
        return percentiles(took);
    }

    /** p50 and p99 in ms of replays of random loaded keys. */
    private static double[] replays(JdbcIdempotencyStore store, long loaded) {
        Random random = new Random(42);
        long[] took = new long[SAMPLES];
        for (int i = 0; i < SAMPLES; i++) {
            long n = (long) (random.nextDouble() * loaded);
            String key = "key-" + md5(Long.toString(n));
            String fingerprint = "sha256:" + md5(Long.toString(n)) + md5(Long.toString(n + 1));
            long start = System.nanoTime();
            Reservation r = store.reserve("tenant-" + (n % 1000), key, fingerprint);
            took[i] = System.nanoTime() - start;
            if (r.outcome() != Reservation.Outcome.REPLAY) throw new IllegalStateException("key " + n + " answered " + r.outcome());
        }
        return percentiles(took);
    }

    private static double[] percentiles(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new double[] {sorted[sorted.length / 2] / 1e6, sorted[(int) (sorted.length * 0.99)] / 1e6};
    }

    private static String md5(String text) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.US_ASCII));
            StringBuilder hex = new StringBuilder();
            for (byte b : digest) hex.append(String.format("%02x", b));
            return hex.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void vacuumAnalyze(Connection sql) throws Exception {
        try (Statement s = sql.createStatement()) {
            s.execute("VACUUM ANALYZE " + TABLE); // a partitioned table's partitions too
        }
    }

    /** The key table and its partitions, if any (a partitioned table itself has no storage of its own). */
    private static final String TABLE_AND_PARTITIONS = "(SELECT CAST('" + TABLE + "' AS regclass) UNION ALL SELECT inhrelid FROM pg_inherits"
            + " WHERE inhparent = CAST('" + TABLE + "' AS regclass))";

    /** A size function summed over the table and its partitions. */
    private static double megabytes(Connection sql, String function) throws Exception {
        return scalar(sql, "SELECT SUM(" + function + "(t)) FROM " + TABLE_AND_PARTITIONS + " AS p (t)") / 1048576.0;
    }

    private static long scalar(Connection sql, String query) throws Exception {
        try (Statement s = sql.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}

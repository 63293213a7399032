package dev.idempotency.agent.core.cli;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigException;
import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.store.redis.RedisDiagnosis;
import dev.idempotency.store.redis.RedisIdempotencyStore;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * {@code doctor}: checks a configuration end to end, one line per check with what to do about it. It never changes
 * the store: the schema is validated, not created, and the privilege probes are rolled back.
 */
final class DoctorCommand {
    /** The store measures every lease and expiry by the database's clock; beyond this, times shown here mislead. */
    private static final Duration NOTABLE_SKEW = Duration.ofSeconds(2);

    private final OperatorCli cli;
    private final CliConsole console;
    private int failures;
    private int warnings;

    DoctorCommand(OperatorCli cli, CliConsole console) {
        this.cli = cli;
        this.console = console;
    }

    int run(CliArguments arguments) {
        arguments.allowOnly("doctor");
        arguments.expectPositional("doctor", 1);
        AgentConfig config;
        try {
            config = cli.config(arguments);
        } catch (ConfigException e) {
            fail("settings", e.getMessage());
            return summary();
        }
        StoreSettings settings = OperatorCli.storeSettings(config);
        ok("settings", "store " + config.store.redactedUrl() + ", table " + settings.table() + ", schema mode "
                + lower(settings.schemaMode()) + ", on expired lease " + lower(settings.expiredLeasePolicy()));
        for (String unknown : config.unknownSettings()) warn("settings", "unknown setting " + unknown + " is ignored by the agent (a typo?)");

        if (StoreSettings.isRedisUrl(settings.url())) return redis(settings);
        try (JdbcIdempotencyStore plain = JdbcIdempotencyStore.open(settings.toBuilder().schemaMode(SchemaMode.NONE).poolSize(1).build())) {
            if (!reachable(plain, settings)) return summary();
            boolean tableValid = schema(plain, settings);
            privileges(plain, settings);
            if (tableValid) keys(plain);
        }
        return summary();
    }

    /** Redis: reachable and its clock, then what {@link RedisDiagnosis} finds, then the keys if the layout is there. */
    private int redis(StoreSettings settings) {
        StoreSettings plain = settings.toBuilder().schemaMode(SchemaMode.NONE).poolSize(1).build();
        try (RedisIdempotencyStore store = RedisIdempotencyStore.open(plain)) {
            if (!reachable(store, settings)) return summary();
            boolean layoutThere = true;
            for (RedisDiagnosis.Finding finding : RedisDiagnosis.of(store, settings)) {
                boolean ok = finding.level == RedisDiagnosis.Finding.Level.OK;
                if (finding.check.equals("schema") && !ok) layoutThere = false;
                switch (finding.level) {
                    case OK: ok(finding.check, finding.message); break;
                    case WARN: warn(finding.check, finding.message); break;
                    default: fail(finding.check, finding.message);
                }
            }
            if (layoutThere) keys(store);
        } catch (StoreException e) {
            fail("store", OperatorCli.oneLine(e.getMessage()));
        }
        return summary();
    }

    private boolean reachable(IdempotencyStore store, StoreSettings settings) {
        long first = System.currentTimeMillis();
        try {
            store.databaseTime();
        } catch (StoreException e) {
            if (isMissingEmbeddedDatabase(e)) {
                warn("store", "the embedded H2 database " + settings.redactedUrl().replace(";IFEXISTS=TRUE", "")
                        + " does not exist yet; the agent creates it when the server serves its first request");
                return false;
            }
            fail("store", OperatorCli.oneLine(e.getMessage()) + " -> check the URL, that the database runs and accepts"
                    + " connections from this machine, and the user and password");
            return false;
        }
        ok("store", store.dialectName() + " reachable, " + (System.currentTimeMillis() - first) + " ms to connect and answer");
        // Measured on the open connection: the round trip bounds the error of comparing the two clocks.
        long before = System.currentTimeMillis();
        Instant database = store.databaseTime();
        long after = System.currentTimeMillis();
        long skew = database.toEpochMilli() - (before + after) / 2;
        String clocks = "the database's clock is " + Math.abs(skew) + " ms " + (skew >= 0 ? "ahead of" : "behind")
                + " this machine's (+/- " + Math.max(1, (after - before) / 2) + " ms)";
        if (Math.abs(skew) > NOTABLE_SKEW.toMillis() + (after - before)) {
            warn("clock", clocks + "; the agent measures leases and expiry by the database's clock only, but times in"
                    + " server logs and on this machine will disagree with the store's: synchronise the clocks (NTP)");
        } else {
            ok("clock", clocks);
        }
        return true;
    }

    /** H2's "database not found" (90146): the tool opens an embedded database only if it exists. */
    private static boolean isMissingEmbeddedDatabase(StoreException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof java.sql.SQLException && ((java.sql.SQLException) t).getErrorCode() == 90146) return true;
        }
        return false;
    }

    private boolean schema(JdbcIdempotencyStore plain, StoreSettings settings) {
        try (JdbcIdempotencyStore validating = JdbcIdempotencyStore.open(settings.toBuilder().schemaMode(SchemaMode.VALIDATE).poolSize(1).build())) {
            validating.checkSchema();
            ok("schema", "table " + settings.table() + " is valid");
            return true;
        } catch (StoreException | StoreConfigurationException e) {
            boolean exists = plain.tableExists();
            if (!exists && settings.schemaMode() == SchemaMode.CREATE) {
                warn("schema", "table " + settings.table() + " does not exist yet; the agent creates it on its first keyed"
                        + " request (schema mode create)");
            } else if (settings.schemaMode() == SchemaMode.NONE && !exists) {
                fail("schema", "table " + settings.table() + " does not exist and schema mode is none -> create it with"
                        + " `java -jar idempotency-agent.jar schema " + plain.dialectName() + "`");
            } else {
                fail("schema", OperatorCli.oneLine(e.getMessage()));
            }
            return false;
        }
    }

    private void privileges(JdbcIdempotencyStore plain, StoreSettings settings) {
        boolean ddl = settings.schemaMode() == SchemaMode.CREATE;
        boolean exists = plain.tableExists();
        List<String> problems = exists ? plain.privilegeProblems(ddl) : plain.creationProblems();
        for (String problem : problems) {
            fail("privileges", OperatorCli.oneLine(problem) + " -> grant it to the store's user"
                    + (problem.contains("create tables") ? ", or create the schema by hand and use schema mode validate" : ""));
        }
        if (problems.isEmpty()) {
            ok("privileges", (exists ? "select, insert, update and delete on " + settings.table() : "")
                    + (exists && ddl ? "; " : "") + (ddl ? "create tables (schema mode create)" : ""));
        }
    }

    private void keys(IdempotencyStore store) {
        Map<KeyStatus, Long> counts = store.countByStatus();
        StringBuilder line = new StringBuilder();
        for (KeyStatus status : KeyStatus.values()) {
            if (line.length() > 0) line.append(", ");
            line.append(counts.getOrDefault(status, 0L)).append(' ').append(KeyFormat.status(status));
        }
        ok("keys", line.toString());
        long unknown = counts.getOrDefault(KeyStatus.UNKNOWN, 0L);
        if (unknown == 0) {
            ok("unknown", "no key of unknown outcome");
            return;
        }
        List<KeyRecord> oldest = store.list(KeyQuery.all(1).withStatus(KeyStatus.UNKNOWN));
        String example = oldest.isEmpty() ? "" : "; the oldest was created " + oldest.get(0).createdAt().truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + " (scope '"
                + oldest.get(0).scope() + "', key '" + oldest.get(0).key() + "')";
        warn("unknown", unknown + (unknown == 1 ? " key's" : " keys'") + " outcome is unknown" + example
                + " -> keys list --status unknown, keys show, then keys resolve --retry or --completed");
    }

    private void ok(String check, String message) {
        console.out.println(pad("ok", 5) + pad(check, 12) + message);
    }

    private void warn(String check, String message) {
        warnings++;
        console.out.println(pad("warn", 5) + pad(check, 12) + message);
    }

    private void fail(String check, String message) {
        failures++;
        console.out.println(pad("FAIL", 5) + pad(check, 12) + message);
    }

    private int summary() {
        console.out.println(failures == 0
                ? "doctor: no problem found" + (warnings == 0 ? "" : " (" + warnings + (warnings == 1 ? " warning" : " warnings") + ")")
                : "doctor: " + failures + (failures == 1 ? " problem" : " problems") + " found");
        return failures == 0 ? OperatorCli.OK : OperatorCli.FAILED;
    }

    private static String pad(String s, int width) {
        StringBuilder b = new StringBuilder(s);
        while (b.length() < width) b.append(' ');
        return b.append(' ').toString();
    }

    private static String lower(Enum<?> e) {
        return e.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }
}

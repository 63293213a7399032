package dev.idempotency.agent.core.cli;

import dev.idempotency.store.KeyQuery;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.StoredResponse;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.agent.core.config.ValueParsers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** {@code keys list|show|resolve|delete}: what an operator does with keys, above all those whose outcome is unknown. */
final class KeysCommand {
    private static final int DEFAULT_LIMIT = 100;
    /** No key lives longer than the longest unknown-retention. */
    private static final Duration LONGEST_AGE = Duration.ofDays(3650);

    private final OperatorCli cli;
    private final CliConsole console;

    KeysCommand(OperatorCli cli, CliConsole console) {
        this.cli = cli;
        this.console = console;
    }

    int run(CliArguments arguments) {
        String action = arguments.positional(1);
        if (action == null) throw new UsageException("keys needs an action: list, show, resolve or delete");
        switch (action) {
            case "list": return list(arguments);
            case "show": return show(arguments);
            case "resolve": return resolve(arguments);
            case "delete": return delete(arguments);
            default: throw new UsageException("unknown keys action '" + action + "'");
        }
    }

    private int list(CliArguments arguments) {
        arguments.allowOnly("keys list", "status", "scope", "older-than", "limit", "json");
        arguments.expectPositional("keys list", 2);
        KeyQuery query = KeyQuery.all(limit(arguments.option("limit")));
        if (arguments.option("status") != null) query = query.withStatus(status(arguments.option("status")));
        if (arguments.option("scope") != null) query = query.inScope(arguments.option("scope"));
        if (arguments.option("older-than") != null) query = query.olderThan(duration("--older-than", arguments.option("older-than")));
        try (IdempotencyStore store = cli.openStore(arguments)) {
            List<KeyRecord> records = store.list(query);
            Instant now = store.databaseTime();
            if (arguments.flag("json")) console.out.println(KeyFormat.json(records, now));
            else console.out.print(KeyFormat.table(records, now));
            if (!arguments.flag("json") && records.size() == query.limit()) {
                console.err.println("(showing the first " + query.limit() + "; --limit N shows more)");
            }
        }
        return OperatorCli.OK;
    }

    private int show(CliArguments arguments) {
        arguments.allowOnly("keys show", "json");
        arguments.expectPositional("keys show", 4);
        return withKey(arguments, (store, record, now) -> {
            if (arguments.flag("json")) console.out.println(KeyFormat.json(Collections.singletonList(record), now, true));
            else console.out.print(KeyFormat.details(record, now));
            return OperatorCli.OK;
        });
    }

    private int resolve(CliArguments arguments) {
        arguments.allowOnly("keys resolve", "retry", "completed", "status", "body-file", "content-type", "yes");
        arguments.expectPositional("keys resolve", 4);
        boolean retry = arguments.flag("retry");
        boolean completed = arguments.flag("completed");
        if (retry == completed) throw new UsageException("keys resolve needs exactly one of --retry and --completed");
        StoredResponse decided = null;
        if (completed) {
            decided = decidedResponse(arguments);
        } else if (arguments.option("status") != null || arguments.option("body-file") != null || arguments.option("content-type") != null) {
            throw new UsageException("--status, --body-file and --content-type go with --completed, not --retry");
        }
        StoredResponse response = decided;
        return withKey(arguments, (store, record, now) -> {
            String refusal = refusalToResolve(record, now);
            if (refusal != null) return refuse(refusal);
            String consequence = retry
                    ? "the next request with this key runs the application again"
                    : "the next request with this key gets status " + response.status() + " and " + response.bodyLength() + " bytes";
            if (!confirmed(arguments, "Resolve " + describe(record) + ": " + consequence + "?")) return declined("not resolved");
            boolean done = retry ? store.resolveForRetry(record.scope(), record.key())
                    : store.resolveAsCompleted(record.scope(), record.key(), response);
            if (!done) return refuse(describe(record) + " changed meanwhile (a request took it over or an operator resolved it);"
                    + " look again with keys show");
            console.out.println("resolved: " + consequence);
            return OperatorCli.OK;
        });
    }

    private int delete(CliArguments arguments) {
        arguments.allowOnly("keys delete", "yes");
        arguments.expectPositional("keys delete", 4);
        return withKey(arguments, (store, record, now) -> {
            if (holdsLiveLease(record, now)) return refuse(inFlight(record, now));
            if (!confirmed(arguments, "Delete " + describe(record) + "? A request with it will then run the application as new.")) {
                return declined("not deleted");
            }
            if (!store.delete(record.scope(), record.key())) {
                return refuse(describe(record) + " was taken by a request meanwhile; look again with keys show");
            }
            console.out.println("deleted");
            return OperatorCli.OK;
        });
    }

    /** What a command does with the key its arguments name, once found; returns the exit code. */
    private interface OnKey {
        int act(IdempotencyStore store, KeyRecord record, Instant now);
    }

    /** Opens the store, finds SCOPE KEY (or says it is not there), and acts on it at the database's present time. */
    private int withKey(CliArguments arguments, OnKey action) {
        String scope = arguments.positional(2);
        String key = arguments.positional(3);
        try (IdempotencyStore store = cli.openStore(arguments)) {
            Optional<KeyRecord> found = store.find(scope, key);
            if (!found.isPresent()) return notFound(scope, key);
            return action.act(store, found.get(), store.databaseTime());
        }
    }

    private boolean confirmed(CliArguments arguments, String question) {
        return arguments.flag("yes") || console.confirm(question);
    }

    private int declined(String what) {
        console.err.println(what);
        return OperatorCli.FAILED;
    }

    private static String describe(KeyRecord record) {
        return "key '" + record.key() + "' in scope '" + record.scope() + "' (" + KeyFormat.status(record.status()) + ")";
    }

    private static String refusalToResolve(KeyRecord record, Instant now) {
        if (holdsLiveLease(record, now)) return inFlight(record, now);
        if (record.status() == KeyStatus.UNKNOWN || record.status() == KeyStatus.IN_FLIGHT) return null;
        return "key '" + record.key() + "' is " + KeyFormat.status(record.status()) + ", not of unknown outcome: nothing to"
                + " resolve (keys delete forgets it, so that the next request runs as new)";
    }

    private static boolean holdsLiveLease(KeyRecord record, Instant now) {
        return record.status() == KeyStatus.IN_FLIGHT && record.leaseExpiresAt().map(now::isBefore).orElse(false);
    }

    private static String inFlight(KeyRecord record, Instant now) {
        return "key '" + record.key() + "' is in flight: a running request holds it (lease "
                + KeyFormat.leaseLeft(record, now) + "); wait for it to finish, or for its lease to run out";
    }

    private int refuse(String why) {
        console.err.println("refused: " + why);
        return OperatorCli.FAILED;
    }

    private int notFound(String scope, String key) {
        console.err.println("no key '" + key + "' in scope '" + scope + "' (keys list shows the keys there are)");
        return OperatorCli.FAILED;
    }

    private static StoredResponse decidedResponse(CliArguments arguments) {
        String status = arguments.option("status");
        if (status == null) throw new UsageException("keys resolve --completed needs --status N, the response to replay");
        int code;
        try {
            code = Integer.parseInt(status.trim());
        } catch (NumberFormatException e) {
            code = -1;
        }
        if (code < 100 || code > 599) throw new UsageException("--status is '" + status + "'; expected an HTTP status from 100 to 599");
        byte[] body = new byte[0];
        String bodyFile = arguments.option("body-file");
        if (bodyFile != null) {
            try {
                body = Files.readAllBytes(Paths.get(bodyFile));
            } catch (IOException e) {
                throw new UsageException("--body-file '" + bodyFile + "' cannot be read: " + e);
            }
        }
        String contentType = arguments.option("content-type");
        List<StoredResponse.Header> headers = contentType == null ? Collections.<StoredResponse.Header>emptyList()
                : Collections.singletonList(new StoredResponse.Header("Content-Type", contentType));
        return new StoredResponse(code, headers, body);
    }

    private static KeyStatus status(String value) {
        String wanted = value.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (KeyStatus s : KeyStatus.values()) if (s.name().equals(wanted)) return s;
        throw new UsageException("--status is '" + value + "'; expected unknown, in-flight, completed or retryable");
    }

    private static int limit(String value) {
        if (value == null) return DEFAULT_LIMIT;
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 100_000) return n;
        } catch (NumberFormatException ignored) {
            // reported below
        }
        throw new UsageException("--limit is '" + value + "'; expected a number from 1 to 100000");
    }

    private static Duration duration(String option, String value) {
        Duration d = ValueParsers.duration(value);
        if (d == null || d.compareTo(LONGEST_AGE) > 0) {
            throw new UsageException(option + " is '" + value + "'; expected " + ValueParsers.DURATION_FORMAT + ", at most 3650d");
        }
        return d;
    }
}

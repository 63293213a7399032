package dev.idempotency.agent.core.cli;

import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.StoreSettings;

/**
 * {@code purge}: deletes expired keys now, in the store's batches (each its own short statement), so it is safe beside
 * running servers: a key a request holds is never expired, and a live server's own purge simply finds less to do.
 */
final class PurgeCommand {
    private final OperatorCli cli;
    private final CliConsole console;

    PurgeCommand(OperatorCli cli, CliConsole console) {
        this.cli = cli;
        this.console = console;
    }

    int run(CliArguments arguments) {
        arguments.allowOnly("purge");
        arguments.expectPositional("purge", 1);
        long[] total = {0};
        StoreSettings settings = OperatorCli.storeSettings(cli.config(arguments));
        try (IdempotencyStore store = cli.openStore(settings)) {
            int deleted = store.purgeExpired(batch -> {
                total[0] += batch;
                console.out.println("purged " + batch + " keys (" + total[0] + " so far)");
            });
            console.out.println("done: " + deleted + " expired " + (deleted == 1 ? "key" : "keys") + " deleted from "
                    + settings.table());
        }
        return OperatorCli.OK;
    }
}

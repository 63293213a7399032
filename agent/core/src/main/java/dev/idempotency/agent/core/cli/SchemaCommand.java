package dev.idempotency.agent.core.cli;

import dev.idempotency.agent.core.config.ValueParsers;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.jdbc.SchemaManager;
import dev.idempotency.store.jdbc.dialect.Dialect;

/** {@code schema DIALECT [--table T] [--partitioning W]}: the DDL the agent would apply, for a DBA to apply by hand. */
final class SchemaCommand {
    private final CliConsole console;

    SchemaCommand(CliConsole console) {
        this.console = console;
    }

    int run(CliArguments arguments) {
        arguments.allowOnly("schema", "partitioning");
        arguments.expectPositional("schema", 2);
        String name = arguments.positional(1);
        Dialect dialect;
        try {
            dialect = Dialect.named(name);
        } catch (StoreConfigurationException e) {
            throw new UsageException(e.getMessage());
        }
        String table = arguments.option("table") == null ? "idempotency_keys" : arguments.option("table");
        if (!table.matches("[A-Za-z_][A-Za-z0-9_]{0,40}(\\.[A-Za-z_][A-Za-z0-9_]{0,40})?")) {
            throw new UsageException("--table is '" + table + "'; expected a table name, optionally schema-qualified");
        }
        java.util.Optional<java.time.Duration> width = arguments.option("partitioning") == null ? java.util.Optional.empty()
                : ValueParsers.partitionWidth(arguments.option("partitioning"));
        if (width == null) {
            throw new UsageException("--partitioning is '" + arguments.option("partitioning") + "'; expected " + ValueParsers.PARTITION_FORMAT);
        }
        if (width.isPresent() && !dialect.partitionsByTime()) {
            throw new UsageException("--partitioning applies to postgresql only");
        }
        console.out.println("-- Idempotency agent schema version " + SchemaManager.SCHEMA_VERSION + " for " + dialect.name()
                + ", table " + table + ". Apply it, then run the agent with idempotency.store.schema=validate.");
        String upgrade = dialect.upgradeResource(1);
        if (upgrade != null) {
            console.out.println("-- A table of schema version 1 needs " + upgrade + " (in the agent jar) applied first.");
        }
        if (width.isPresent()) {
            console.out.println("-- Key table in time partitions " + width.get().getSeconds() + "s wide: run the agent with"
                    + " idempotency.store.partitioning set to the same width, as the table's owner (it makes and drops partitions).");
        }
        for (String statement : SchemaManager.ddlStatements(dialect, table, width.orElse(null))) console.out.println(statement + ";");
        return OperatorCli.OK;
    }
}

package dev.idempotency.agent.core.cli;

import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.jdbc.SchemaManager;
import dev.idempotency.store.jdbc.dialect.Dialect;

/** {@code schema DIALECT [--table T]}: the DDL the agent would apply, for a DBA to apply by hand. */
final class SchemaCommand {
    private final CliConsole console;

    SchemaCommand(CliConsole console) {
        this.console = console;
    }

    int run(CliArguments arguments) {
        arguments.allowOnly("schema");
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
        console.out.println("-- Idempotency agent schema version " + SchemaManager.SCHEMA_VERSION + " for " + dialect.name()
                + ", table " + table + ". Apply it, then run the agent with idempotency.store.schema=validate.");
        String upgrade = dialect.upgradeResource(1);
        if (upgrade != null) {
            console.out.println("-- A table of schema version 1 needs " + upgrade + " (in the agent jar) applied first.");
        }
        for (String statement : SchemaManager.ddlStatements(dialect, table)) console.out.println(statement + ";");
        return OperatorCli.OK;
    }
}

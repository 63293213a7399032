package dev.idempotency.agent.core.cli;

import dev.idempotency.agent.core.config.AgentConfig;
import dev.idempotency.agent.core.config.ConfigException;
import dev.idempotency.agent.core.config.ConfigSource;
import dev.idempotency.store.IdempotencyStore;
import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.SchemaMode;
import dev.idempotency.store.StoreException;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.families.StoreFamilies;

import java.io.File;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * {@code java -jar idempotency-agent.jar <command>}: reads the same settings as the agent (system properties,
 * {@code IDEMPOTENCY_*} environment, {@code --config FILE}; {@code --url/--user/--password/--table} win over all) and
 * runs one operator command. Exit codes: 0 done, 1 a failure (store fault, refusal, problems found), 2 a usage or
 * configuration error.
 */
public final class OperatorCli {
    static final int OK = 0;
    static final int FAILED = 1;
    static final int USAGE = 2;

    static final String USAGE_TEXT = String.join("\n",
            "usage: java -jar idempotency-agent.jar <command> [options]",
            "",
            "commands:",
            "  keys list [--status unknown|in-flight|completed|retryable] [--scope S] [--older-than 1h] [--limit N] [--json]",
            "  keys show SCOPE KEY [--json]",
            "  keys resolve SCOPE KEY --retry [--yes]",
            "  keys resolve SCOPE KEY --completed --status N [--body-file F] [--content-type T] [--yes]",
            "  keys delete SCOPE KEY [--yes]",
            "  purge                       delete expired keys in batches (safe beside running servers)",
            "  doctor                      check the configuration and the store end to end",
            "  schema postgresql|mariadb|mysql|h2   print the DDL to apply by hand (--partitioning W: PostgreSQL time partitions)",
            "  list-jvms                   the JVMs of this user that the agent can attach to",
            "  attach PID [setting=value ...]   protect a running JVM without restarting it",
            "  endpoints PID | --metrics URL   the state-changing endpoints a running agent saw, with and without keys",
            "  version [--json]            the agent's version and commit, the components it bundles (--json: SBOM)",
            "",
            "store options (the agent's settings otherwise: -Didempotency.*, IDEMPOTENCY_* variables):",
            "  --config FILE  --url JDBC_URL  --user NAME  --password SECRET  --table NAME",
            "  (a password on the command line shows in ps and shell history: prefer IDEMPOTENCY_STORE_PASSWORD or --config)",
            "  -- ends the options: a key that starts with -- comes after it",
            "",
            "exit codes: 0 done, 1 failed or refused, 2 usage or configuration error");

    private final CliConsole console;
    private final Properties systemProperties;
    private final Map<String, String> environment;
    private final File agentJar;

    OperatorCli(CliConsole console, Properties systemProperties, Map<String, String> environment, File agentJar) {
        this.console = console;
        this.systemProperties = systemProperties;
        this.environment = environment;
        this.agentJar = agentJar;
    }

    /** Called by the jar's main class; returns the exit code. */
    public static int run(String[] args, File agentJar) {
        CliConsole console = new CliConsole(System.out, System.err, System.in);
        return new OperatorCli(console, System.getProperties(), System.getenv(), agentJar).run(args);
    }

    int run(String[] args) {
        try {
            CliArguments arguments = new CliArguments(args);
            String command = arguments.positional(0);
            if (command == null || arguments.flag("help") || "help".equals(command)) {
                console.out.println(USAGE_TEXT);
                return command == null && !arguments.flag("help") ? USAGE : OK;
            }
            switch (command) {
                case "keys": return new KeysCommand(this, console).run(arguments);
                case "purge": return new PurgeCommand(this, console).run(arguments);
                case "doctor": return new DoctorCommand(this, console).run(arguments);
                case "schema": return new SchemaCommand(console).run(arguments);
                case "list-jvms": return new AttachCommand(console, agentJar).listJvms(arguments);
                case "attach": return new AttachCommand(console, agentJar).attach(arguments);
                case "endpoints": return new EndpointsCommand(console).run(arguments);
                case "version": return new VersionCommand(console, agentJar).run(arguments);
                default: throw new UsageException("unknown command '" + command + "'");
            }
        } catch (UsageException e) {
            console.err.println("idempotency-agent: " + e.getMessage());
            console.err.println();
            console.err.println(USAGE_TEXT);
            return USAGE;
        } catch (ConfigException e) {
            console.err.println("idempotency-agent: configuration rejected: " + e.getMessage());
            return USAGE;
        } catch (StoreException e) {
            console.err.println("idempotency-agent: " + oneLine(e.getMessage()) + hint(e));
            return FAILED;
        } catch (StoreConfigurationException e) {
            console.err.println("idempotency-agent: " + oneLine(e.getMessage()) + " (doctor checks the whole configuration)");
            return FAILED;
        } catch (AttachApi.AttachFailure e) {
            console.err.println("idempotency-agent: " + e.getMessage());
            return FAILED;
        } catch (IllegalArgumentException e) {
            // the store's own checks on what it is given: a key longer than the schema holds, an empty key
            console.err.println("idempotency-agent: " + e.getMessage());
            return USAGE;
        }
    }

    /** The agent's settings as this command line sees them: its flags win over system properties, environment and file. */
    AgentConfig config(CliArguments arguments) {
        Properties properties = new Properties();
        properties.putAll(systemProperties);
        setIfGiven(properties, "idempotency.config", arguments.option("config"));
        setIfGiven(properties, "idempotency.store.url", arguments.option("url"));
        setIfGiven(properties, "idempotency.store.user", arguments.option("user"));
        setIfGiven(properties, "idempotency.store.password", arguments.option("password"));
        setIfGiven(properties, "idempotency.store.table", arguments.option("table"));
        return AgentConfig.load(ConfigSource.of(properties, environment));
    }

    IdempotencyStore openStore(CliArguments arguments) {
        return openStore(storeSettings(config(arguments)));
    }

    /**
     * The store of these settings (from {@link #storeSettings}), its table or prefix validated now: a store connects
     * on first use, and a typo must say so before the command acts.
     */
    IdempotencyStore openStore(StoreSettings settings) {
        StoreSettings validating = settings.toBuilder()
                .schemaMode(settings.schemaMode() == SchemaMode.NONE ? SchemaMode.NONE : SchemaMode.VALIDATE).build();
        IdempotencyStore store = StoreFamilies.open(validating);
        try {
            store.checkSchema();
            return store;
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /**
     * The store as the tool may open it: it never creates anything. A typo in a URL or a table name must say so, not
     * quietly answer "no keys" from a new empty table or a new embedded database file.
     */
    static StoreSettings storeSettings(AgentConfig config) {
        StoreSettings settings = config.store;
        String url = settings.url();
        if (url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:") && !url.toLowerCase(Locale.ROOT).startsWith("jdbc:h2:mem:")
                && !url.toUpperCase(Locale.ROOT).contains("IFEXISTS")) {
            return settings.toBuilder().url(url + ";IFEXISTS=TRUE").build();
        }
        return settings;
    }

    private static void setIfGiven(Properties properties, String name, String value) {
        if (value != null) properties.setProperty(name, value);
    }

    static String oneLine(String message) {
        return message == null ? "" : message.replaceAll("\\s*\\R\\s*", " ").trim();
    }

    private static String hint(RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        if (message.contains("Database may be already in use") || message.contains("90020")) {
            return " (the embedded H2 store is open in a running server: stop that server first, or run both on a shared"
                    + " database)";
        }
        return "";
    }
}

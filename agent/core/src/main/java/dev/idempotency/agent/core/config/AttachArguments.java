package dev.idempotency.agent.core.config;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The agent's argument string. {@code attach} passes {@code settings-file=PATH}: a properties file whose settings win
 * over the target JVM's own system properties (a file, because the attach protocol limits an argument to 1024 bytes).
 * {@code -javaagent:jar=...} takes no arguments; settings come from system properties, environment and file.
 */
public final class AttachArguments {
    public static final String SETTINGS_FILE = "settings-file=";

    private AttachArguments() {
    }

    public static ConfigSource settings(String arguments) {
        if (arguments == null || arguments.trim().isEmpty()) return ConfigSource.fromEnvironment();
        if (!arguments.startsWith(SETTINGS_FILE)) {
            dev.idempotency.agent.core.log.AgentLog.warn("agent arguments are ignored; configure the agent with -Didempotency.*"
                    + " system properties, IDEMPOTENCY_* variables or idempotency.config");
            return ConfigSource.fromEnvironment();
        }
        String path = arguments.substring(SETTINGS_FILE.length());
        Properties merged = new Properties();
        merged.putAll(System.getProperties());
        try (InputStream in = new FileInputStream(new File(path))) {
            Properties given = new Properties();
            given.load(in);
            merged.putAll(given);
        } catch (IOException e) {
            throw new ConfigException("the settings passed by attach cannot be read from " + path + ": " + e.getMessage());
        }
        return ConfigSource.of(merged, System.getenv());
    }
}

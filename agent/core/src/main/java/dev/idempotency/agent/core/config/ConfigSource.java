package dev.idempotency.agent.core.config;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where a setting's value comes from: a system property {@code idempotency.x.y}, else the environment variable
 * {@code IDEMPOTENCY_X_Y}, else a line in the properties file named by {@code idempotency.config}.
 */
public final class ConfigSource {
    static final String PREFIX = "idempotency.";
    static final String CONFIG_FILE = "idempotency.config";

    private final Properties systemProperties;
    private final Map<String, String> environment;
    private final Properties file;
    private final String fileName;

    ConfigSource(Properties systemProperties, Map<String, String> environment) {
        this.systemProperties = systemProperties;
        this.environment = environment;
        this.fileName = lookup(CONFIG_FILE, systemProperties, environment, new Properties());
        this.file = fileName == null ? new Properties() : load(fileName);
    }

    /** The settings of this JVM. */
    public static ConfigSource fromEnvironment() {
        return new ConfigSource(System.getProperties(), System.getenv());
    }

    /** For tests and embedding: explicit system properties and environment. */
    public static ConfigSource of(Properties systemProperties, Map<String, String> environment) {
        return new ConfigSource(systemProperties, environment);
    }

    /** The value, or null when no source sets it. */
    public String get(String name) {
        return lookup(name, systemProperties, environment, file);
    }

    /** Where the value of a setting came from, for messages. */
    public String origin(String name) {
        if (systemProperties.getProperty(name) != null) return "system property " + name;
        if (environment.get(environmentName(name)) != null) return "environment variable " + environmentName(name);
        if (file.getProperty(name) != null) return name + " in " + fileName;
        return name;
    }

    /** Settings present in system properties or the file that no known name matches (most likely typos). */
    public Set<String> unknownNames(Set<String> known) {
        Set<String> unknown = new TreeSet<>();
        for (String name : systemProperties.stringPropertyNames()) {
            if (name.startsWith(PREFIX) && !known.contains(name) && !name.startsWith(PREFIX + "test.")) unknown.add(name);
        }
        for (String name : file.stringPropertyNames()) if (!known.contains(name)) unknown.add(name + " (in " + fileName + ")");
        return Collections.unmodifiableSet(unknown);
    }

    static String environmentName(String name) {
        return name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    private static String lookup(String name, Properties systemProperties, Map<String, String> environment, Properties file) {
        String value = systemProperties.getProperty(name);
        if (value == null) value = environment.get(environmentName(name));
        if (value == null) value = file.getProperty(name);
        return value == null ? null : value.trim();
    }

    private static Properties load(String fileName) {
        Properties properties = new Properties();
        File f = new File(fileName);
        try (InputStream in = new FileInputStream(f)) {
            properties.load(in);
        } catch (IOException e) {
            throw new ConfigException("setting '" + CONFIG_FILE + "' is '" + fileName + "'; expected a readable properties file ("
                    + e.getMessage() + ")");
        }
        return properties;
    }
}

package dev.idempotency.agent.core.config;

/** A setting with a value the agent cannot use; the message names the setting, the value and what is accepted. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}

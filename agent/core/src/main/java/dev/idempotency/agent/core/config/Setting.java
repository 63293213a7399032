package dev.idempotency.agent.core.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * One setting, declared once: its name, default, how its value is read, what it accepts (for the error naming a bad
 * value) and what it means (for docs/configuration.md, which is generated from these declarations).
 */
public final class Setting<T> {
    private final String name;
    private final String defaultValue;
    private final String shownDefault;
    private final Function<String, T> parser;
    private final String accepted;
    private final String meaning;
    private final boolean secret;
    private final boolean atStartUp;
    private final Setting<T> aliasOf;

    private Setting(String name, String defaultValue, String shownDefault, Function<String, T> parser, String accepted,
                    String meaning, boolean secret, boolean atStartUp, Setting<T> aliasOf) {
        this.name = name;
        this.defaultValue = defaultValue;
        this.shownDefault = shownDefault;
        this.parser = parser;
        this.accepted = accepted;
        this.meaning = meaning;
        this.secret = secret;
        this.atStartUp = atStartUp;
        this.aliasOf = aliasOf;
    }

    static <T> Builder<T> named(String name) {
        return new Builder<>(name);
    }

    /** Another name of {@code primary}: the same values, no default of its own, documented in the primary's row. */
    static <T> Setting<T> aliasOf(Setting<T> primary, String name) {
        return new Setting<>(name, null, null, primary.parser, primary.accepted, null, primary.secret, false, primary);
    }

    public String name() { return name; }

    /** The value used when the setting is not given; null: unset. */
    public String defaultValue() { return defaultValue; }

    /** The default as the documentation shows it. */
    String shownDefault() {
        if (shownDefault != null) return shownDefault;
        return defaultValue == null || defaultValue.isEmpty() ? "(none)" : "`" + defaultValue + "`";
    }

    /** What a valid value looks like, as the error for a bad one says. */
    String accepted() { return accepted; }

    /** One line of documentation (Markdown, links relative to docs/). */
    String meaning() { return meaning; }

    /** Never shown: errors print {@code ***} instead of its value. */
    boolean secret() { return secret; }

    /** Named in the start-up line even at its default (any setting given is named there). */
    boolean atStartUp() { return atStartUp; }

    /** The setting this one is another name of, or null. */
    Setting<T> aliasOf() { return aliasOf; }

    /** The value read, or null when it is not acceptable. */
    T parse(String value) {
        try {
            return parser.apply(value);
        } catch (RuntimeException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return name;
    }

    static final class Builder<T> {
        private final String name;
        private String defaultValue;
        private String shownDefault;
        private Function<String, T> parser;
        private String accepted;
        private boolean secret;
        private boolean atStartUp;

        private Builder(String name) {
            this.name = name;
        }

        Builder<T> byDefault(String value) {
            this.defaultValue = value;
            return this;
        }

        Builder<T> shownAs(String documentedDefault) {
            this.shownDefault = documentedDefault;
            return this;
        }

        Builder<T> parsedBy(Function<String, T> parser) {
            this.parser = parser;
            return this;
        }

        Builder<T> accepting(String accepted) {
            this.accepted = accepted;
            return this;
        }

        Builder<T> secret() {
            this.secret = true;
            return this;
        }

        /** A setting every operator checks: the start-up line names it even when it is not given. */
        Builder<T> shownAtStartUp() {
            this.atStartUp = true;
            return this;
        }

        Setting<T> meaning(String meaning) {
            return new Setting<>(name, defaultValue, shownDefault, Objects.requireNonNull(parser, name),
                    Objects.requireNonNull(accepted, name), Objects.requireNonNull(meaning, name), secret, atStartUp, null);
        }
    }
}

package dev.idempotency.agent.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The agent's one start-up line, derived from the declarations in {@link Settings}: the settings every operator checks
 * (declared {@code shownAtStartUp}) and every other one that was given, each as {@code name=value} under the name an
 * operator sets, in the documentation's order. Secrets are never shown; values the agent computes (the store URL
 * without its password, the default embedded database) are shown as computed.
 */
final class StartUpLine {
    private static final String PREFIX = "idempotency.";

    private StartUpLine() {
    }

    static String render(ConfigSource source, Map<String, String> computed) {
        List<String> parts = new ArrayList<>();
        for (Setting<?> setting : Settings.ALL) {
            if (setting.aliasOf() != null) continue; // shown under the name it is an alias of
            String given = given(source, setting);
            if (given == null && !setting.atStartUp()) continue;
            String value = computed.containsKey(setting.name()) ? computed.get(setting.name())
                    : given != null ? given : setting.defaultValue();
            if (value == null) continue;
            parts.add(shortName(setting) + "=" + (setting.secret() ? "***" : value));
        }
        return String.join("; ", parts);
    }

    /** The value given for the setting or for one of its aliases, trimmed; null when neither was given. */
    private static String given(ConfigSource source, Setting<?> setting) {
        String value = source.get(setting.name());
        for (Setting<?> alias : Settings.ALL) {
            if (value == null && alias.aliasOf() == setting) value = source.get(alias.name());
        }
        return value == null ? null : value.trim();
    }

    private static String shortName(Setting<?> setting) {
        String name = setting.name();
        return name.startsWith(PREFIX) ? name.substring(PREFIX.length()) : name;
    }
}

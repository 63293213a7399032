package dev.idempotency.agent.core.config;

import java.util.ArrayList;
import java.util.List;

/**
 * docs/configuration.md, rendered from the declarations in {@link Settings}: the page is never edited by hand, and
 * {@code ConfigurationPageTest} fails when the file differs from what this renders.
 */
public final class ConfigurationPage {
    private static final String INTRO = String.join("\n",
            "# Configuration",
            "",
            "Every setting of the agent, how it is given, and what it accepts. Back to the [README](../README.md).",
            "This page is generated from the settings' declarations (`agent/core/.../config/Settings.java`); to change it,",
            "change them and run `./mvnw -pl agent/core test -Dtest=ConfigurationPageTest -Didempotency.docs.write=true`.",
            "",
            "Every setting is a system property; the same name upper-cased with `_` for `.` and `-` is an environment variable",
            "(`idempotency.store.password` → `IDEMPOTENCY_STORE_PASSWORD`); or a line in a properties file named by",
            "`idempotency.config`. A system property beats the environment, which beats the file. A bad value stops the agent at",
            "start-up with a message naming the setting, the value and what is accepted; the host still starts, unprotected, and",
            "says so on stderr. Unknown `idempotency.*` settings are reported as likely typos. Durations accept `500ms`, `30s`,",
            "`5m`, `24h`, `7d`; sizes accept bytes or `KiB`/`MiB`/`GiB` (and `kb`/`mb`/`gb`).",
            "");

    private ConfigurationPage() {
    }

    /** The whole page, ending with a newline. */
    public static String render() {
        StringBuilder page = new StringBuilder(INTRO).append('\n');
        page.append("| setting | default | meaning |\n|---|---|---|\n");
        for (Setting<?> setting : Settings.ALL) {
            if (setting.aliasOf() != null) continue; // in its primary's row
            page.append("| `").append(setting.name()).append('`');
            List<String> aliases = aliasesOf(setting);
            for (String alias : aliases) page.append(" (also `").append(alias).append("`)");
            page.append(" | ").append(setting.shownDefault()).append(" | ").append(setting.meaning()).append(" |\n");
        }
        return page.toString();
    }

    private static List<String> aliasesOf(Setting<?> primary) {
        List<String> names = new ArrayList<>();
        for (Setting<?> s : Settings.ALL) if (s.aliasOf() == primary) names.add(s.name());
        return names;
    }
}

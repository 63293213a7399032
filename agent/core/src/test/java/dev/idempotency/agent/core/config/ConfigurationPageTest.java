package dev.idempotency.agent.core.config;

import dev.idempotency.agent.core.RepositoryRoot;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/configuration.md is what the settings' declarations render, so a setting added, renamed or given another
 * default without its documentation fails here. {@code -Didempotency.docs.write=true} writes the page instead.
 */
class ConfigurationPageTest {

    private static Path page() {
        return RepositoryRoot.path().resolve("docs").resolve("configuration.md");
    }

    @Test
    void thePageIsWhatTheDeclarationsRender() throws IOException {
        String rendered = ConfigurationPage.render();
        if (Boolean.getBoolean("idempotency.docs.write")) Files.write(page(), rendered.getBytes(StandardCharsets.UTF_8));
        String written = new String(Files.readAllBytes(page()), StandardCharsets.UTF_8);
        assertEquals(rendered, written, "docs/configuration.md is stale: rerun this test with -Didempotency.docs.write=true");
    }

    @Test
    void everySettingIsDeclaredOnceAndRendered() {
        Set<String> names = new HashSet<>();
        String rendered = ConfigurationPage.render();
        for (Setting<?> s : Settings.ALL) {
            assertTrue(names.add(s.name()), "declared twice: " + s.name());
            assertTrue(rendered.contains("`" + s.name() + "`"), "not on the page: " + s.name());
        }
        assertEquals(AgentConfig.DEFAULTS.keySet(), names);
    }

    @Test
    void aBadValueIsRefusedWithWhatTheDeclarationAccepts() {
        for (Setting<?> s : Settings.ALL) {
            if (s.name().equals(ConfigSource.CONFIG_FILE) || s.name().equals(Settings.METRICS_HOST.name())) continue; // any text
            if (s.parse("\u0000 not a value \u0000") != null && !s.name().startsWith("idempotency.store.")) {
                throw new AssertionError(s.name() + " accepts anything; expected " + s.accepted());
            }
        }
    }
}

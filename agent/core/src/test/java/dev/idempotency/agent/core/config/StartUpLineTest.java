package dev.idempotency.agent.core.config;

import org.junit.jupiter.api.Test;

import java.util.Collections;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StartUpLineTest {

    private static AgentConfig load(String... pairs) {
        Properties p = new Properties();
        for (int i = 0; i < pairs.length; i += 2) p.setProperty(pairs[i], pairs[i + 1]);
        return AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
    }

    @Test
    void atTheDefaultsItNamesExactlyTheSettingsDeclaredShownAtStartUp() {
        String line = load().summary();
        int named = 0;
        for (Setting<?> s : Settings.ALL) {
            String shortName = s.name().substring("idempotency.".length());
            boolean shown = line.startsWith(shortName + "=") || line.contains("; " + shortName + "=");
            assertEquals(s.atStartUp(), shown, s.name() + " in: " + line);
            if (shown) named++;
        }
        assertEquals(line.split("; ").length, named, line);
        assertTrue(line.startsWith("methods=POST,PATCH; include=/**; header=Idempotency-Key; tenant=auto;"), line);
        assertTrue(line.contains("; store.url=jdbc:h2:"), line);
        assertFalse(line.contains("DB_CLOSE_ON_EXIT"), line); // the agent's own addition, no setting of the operator's
    }

    @Test
    void everySettingGivenIsNamedWithTheValueGiven() {
        String line = load("idempotency.key.max-length", " 64 ", "idempotency.required", "/pay/**").summary();
        assertTrue(line.contains("; required=/pay/**;"), line);
        assertTrue(line.contains("; key.max-length=64;"), line);
    }

    @Test
    void anAliasIsShownUnderTheNameItStandsFor() {
        String line = load("idempotency.store.url", "jdbc:postgresql://db/app", "idempotency.recovery", "transaction").summary();
        assertTrue(line.contains("; on-expired-lease=transaction;"), line);
        assertFalse(line.contains("recovery="), line);
    }

    @Test
    void secretsAndPasswordsInTheUrlAreNeverShown() {
        String line = load("idempotency.store.url", "jdbc:postgresql://db/app?user=app&password=hunter2",
                "idempotency.store.password", "hunter3").summary();
        assertFalse(line.contains("hunter2") || line.contains("hunter3"), line);
        assertTrue(line.contains("store.password=***"), line);
        assertTrue(line.contains("store.url=jdbc:postgresql://db/app"), line);
    }
}

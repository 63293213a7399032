package dev.idempotency.agent.core.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Collections;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OutboundHostsTest {
    private final OutboundHosts hosts = OutboundHosts.parse(" api.stripe.com, *.adyen.com ,api.paypal.com=PayPal-Request-Id,10.0.0.7");

    @Test
    void aHostGetsTheHeaderOfTheFirstPatternNamingIt() {
        assertEquals("Idempotency-Key", hosts.headerFor("api.stripe.com"));
        assertEquals("Idempotency-Key", hosts.headerFor("API.Stripe.COM."), "case and the trailing dot do not matter");
        assertEquals("Idempotency-Key", hosts.headerFor("checkout-test.adyen.com"));
        assertEquals("Idempotency-Key", hosts.headerFor("pal.live.adyen.com"), "subdomains at any depth");
        assertEquals("PayPal-Request-Id", hosts.headerFor("api.paypal.com"));
        assertEquals("Idempotency-Key", hosts.headerFor("10.0.0.7"));
    }

    @Test
    void noOtherHostGetsAnything() {
        assertNull(hosts.headerFor("adyen.com"), "*. names subdomains only");
        assertNull(hosts.headerFor("evil-adyen.com"));
        assertNull(hosts.headerFor("api.stripe.com.evil.test"));
        assertNull(hosts.headerFor("stripe.com"));
        assertNull(hosts.headerFor("api.paypal.co"));
        assertNull(hosts.headerFor(null));
        assertNull(OutboundHosts.parse("").headerFor("api.stripe.com"));
        assertTrue(OutboundHosts.parse(" , ").isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://api.stripe.com", "api.stripe.com/v1", "api.stripe.com:443", "*", "api.*.com", "*.", "a..b",
            "api.stripe.com=", "api.stripe.com=Bad Header", "-api.stripe.com", "=Idempotency-Key", "*.com", "*.1", "*.0.0.1"})
    void aMalformedEntryIsRefusedWithTheSettingNamed(String value) {
        assertNull(OutboundHosts.parse(value), value);
        Properties p = new Properties();
        p.setProperty("idempotency.outbound.hosts", value);
        ConfigException e = assertThrows(ConfigException.class, () -> AgentConfig.load(ConfigSource.of(p, Collections.emptyMap())));
        assertTrue(e.getMessage().contains("'idempotency.outbound.hosts'") && e.getMessage().contains("e.g. api.stripe.com"), e.getMessage());
    }

    @Test
    void theSettingsAndTheirDefaults() {
        AgentConfig defaults = AgentConfig.load(ConfigSource.of(new Properties(), Collections.emptyMap()));
        assertTrue(defaults.outboundHosts.isEmpty());
        assertEquals("POST,PATCH", String.join(",", defaults.outboundMethods));
        Properties p = new Properties();
        p.setProperty("idempotency.outbound.hosts", "api.stripe.com,api.paypal.com=PayPal-Request-Id");
        p.setProperty("idempotency.outbound.methods", "post,put");
        AgentConfig c = AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        assertEquals("PayPal-Request-Id", c.outboundHosts.headerFor("api.paypal.com"));
        assertTrue(c.outboundMethods.contains("PUT"));
        assertTrue(c.summary().contains("outbound.hosts=api.stripe.com,api.paypal.com=PayPal-Request-Id; outbound.methods=post,put"), c.summary());
    }

    @Test
    void replacedKeysNameHostsOnlyAndNeedTheHostsListed() {
        Properties p = new Properties();
        p.setProperty("idempotency.outbound.hosts", "api.stripe.com");
        p.setProperty("idempotency.outbound.replace-keys", "api.stripe.com");
        AgentConfig c = AgentConfig.load(ConfigSource.of(p, Collections.emptyMap()));
        assertEquals("Idempotency-Key", c.outboundReplaceKeys.headerFor("api.stripe.com"));
        assertTrue(c.summary().contains("outbound.replace-keys=api.stripe.com"), c.summary());
        p.setProperty("idempotency.outbound.replace-keys", "api.stripe.com=Other-Header");
        ConfigException header = assertThrows(ConfigException.class, () -> AgentConfig.load(ConfigSource.of(p, Collections.emptyMap())));
        assertTrue(header.getMessage().contains("'idempotency.outbound.replace-keys'"), header.getMessage());
        Properties alone = new Properties();
        alone.setProperty("idempotency.outbound.replace-keys", "api.stripe.com");
        ConfigException e = assertThrows(ConfigException.class, () -> AgentConfig.load(ConfigSource.of(alone, Collections.emptyMap())));
        assertTrue(e.getMessage().contains("needs the hosts listed in 'idempotency.outbound.hosts'"), e.getMessage());
    }
}

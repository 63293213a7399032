package dev.idempotency.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.idempotency.e2e.support.E2eEnvironment;
import dev.idempotency.e2e.support.Monitoring;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The shipped alerting rules (docs/monitoring/idempotency-alerts.yml) with the real tool: {@code promtool check rules}
 * accepts them, {@code promtool test rules} passes their unit tests, every alert has a unit test that sees it fire and
 * one that sees it stay quiet, and those tests bite: with any one alert made never to fire, or to fire on everything
 * its query returns, {@code promtool test rules} fails. And the Grafana dashboard beside them imports anywhere.
 */
public class MonitoringRulesIT {
    private static final Pattern ALERTNAME = Pattern.compile("^\\s*alertname:\\s*(\\S+)\\s*$");
    private static final Pattern EXP_ALERTS = Pattern.compile("^\\s*exp_alerts:\\s*(.*)$");

    @Test
    public void promtoolAcceptsTheRules() throws Exception {
        Path promtool = Monitoring.tool("promtool");
        Map<String, String> alerts = Monitoring.alerts(Monitoring.read(Monitoring.RULES));
        assertTrue(alerts.size() >= 6, "store down, 503s, outcome unknown, heartbeat, 422s, memory: " + alerts.keySet());
        Result check = run(Monitoring.directory(), promtool.toString(), "check", "rules", Monitoring.RULES);
        assertEquals(0, check.exit, check.output);
        assertTrue(check.output.contains("SUCCESS: " + alerts.size() + " rules found"), check.output);
        for (Map.Entry<String, String> alert : alerts.entrySet()) {
            assertTrue(Monitoring.FINAL_COMPARISON.matcher(alert.getValue()).find(),
                    alert.getKey() + ": one query, then one comparison with a number: " + alert.getValue());
        }
    }

    @Test
    public void theUnitTestsOfTheRulesPass() throws Exception {
        Path promtool = Monitoring.tool("promtool");
        Result test = run(Monitoring.directory(), promtool.toString(), "test", "rules", Monitoring.RULE_TESTS);
        assertEquals(0, test.exit, test.output);
        assertTrue(test.output.contains("SUCCESS"), test.output);
    }

    @Test
    public void everyAlertHasAUnitTestWhereItFiresAndOneWhereItDoesNot() throws Exception {
        Set<String> firing = new LinkedHashSet<>();
        Set<String> quiet = new LinkedHashSet<>();
        String alertname = null;
        for (String line : Monitoring.read(Monitoring.RULE_TESTS).split("\n")) {
            Matcher name = ALERTNAME.matcher(line);
            if (name.matches()) alertname = name.group(1);
            Matcher expected = EXP_ALERTS.matcher(line);
            if (expected.matches() && alertname != null) {
                (expected.group(1).trim().equals("[]") ? quiet : firing).add(alertname);
                alertname = null;
            }
        }
        Set<String> alerts = Monitoring.alerts(Monitoring.read(Monitoring.RULES)).keySet();
        List<String> missing = new ArrayList<>();
        for (String alert : alerts) {
            if (!firing.contains(alert)) missing.add(alert + " never seen firing");
            if (!quiet.contains(alert)) missing.add(alert + " never seen quiet");
        }
        assertTrue(missing.isEmpty(), String.join("; ", missing));
        Set<String> unknown = new LinkedHashSet<>(firing);
        unknown.addAll(quiet);
        unknown.removeAll(alerts);
        assertTrue(unknown.isEmpty(), "unit tests of alerts the rules do not have: " + unknown);
    }

    /** Mutations of each alert in turn, on a copy: the unit tests must catch every one. */
    @Test
    public void theUnitTestsFailWhenAnyAlertIsBroken() throws Exception {
        Path promtool = Monitoring.tool("promtool");
        String rules = Monitoring.read(Monitoring.RULES);
        Path copy = Files.createDirectories(E2eEnvironment.work().resolve("rules-mutations-" + Long.toHexString(System.nanoTime())));
        Files.copy(Monitoring.directory().resolve(Monitoring.RULE_TESTS), copy.resolve(Monitoring.RULE_TESTS));
        Files.write(copy.resolve(Monitoring.RULES), rules.getBytes(StandardCharsets.UTF_8));
        Result intact = run(copy, promtool.toString(), "test", "rules", Monitoring.RULE_TESTS);
        assertEquals(0, intact.exit, "the copy passes before it is broken: " + intact.output);

        List<String> survivors = new ArrayList<>();
        for (String alert : Monitoring.alerts(rules).keySet()) {
            // never fires (every figure is >= 0), then fires on every series its query returns
            for (String comparison : new String[] {"< -1", ">= 0"}) {
                String broken = Monitoring.withComparison(rules, alert, comparison);
                assertNotEquals(rules, broken);
                Files.write(copy.resolve(Monitoring.RULES), broken.getBytes(StandardCharsets.UTF_8));
                Result check = run(copy, promtool.toString(), "check", "rules", Monitoring.RULES);
                assertEquals(0, check.exit, "the mutation must still be a valid rule, else it proves nothing: " + check.output);
                Result test = run(copy, promtool.toString(), "test", "rules", Monitoring.RULE_TESTS);
                if (test.exit == 0) survivors.add(alert + " with '" + comparison + "'");
                else assertTrue(test.output.contains(alert), "the failure names the broken alert " + alert + ": " + test.output);
            }
        }
        assertTrue(survivors.isEmpty(), "broken alerts the unit tests did not notice: " + survivors);
    }

    /**
     * The dashboard imports into any Grafana: its Prometheus datasource is an input (${DS_PROMETHEUS}) every panel and
     * query uses, and every panel has a query. PrometheusAlertsTomcat9IT runs the queries.
     */
    @Test
    public void theDashboardTakesItsPrometheusAsAnInput() throws Exception {
        JsonNode dashboard = new ObjectMapper().readTree(Monitoring.read(Monitoring.DASHBOARD));
        JsonNode input = dashboard.path("__inputs").path(0);
        assertEquals("DS_PROMETHEUS", input.path("name").asText(), dashboard.path("__inputs").toString());
        assertEquals("datasource", input.path("type").asText());
        assertEquals("prometheus", input.path("pluginId").asText());
        List<String> wrong = new ArrayList<>();
        Set<Integer> ids = new LinkedHashSet<>();
        for (JsonNode panel : dashboard.path("panels")) {
            String title = panel.path("title").asText();
            if (!ids.add(panel.path("id").asInt())) wrong.add(title + ": id " + panel.path("id") + " twice");
            if (!"${DS_PROMETHEUS}".equals(panel.path("datasource").path("uid").asText())) wrong.add(title + ": datasource " + panel.path("datasource"));
            if (panel.path("targets").isEmpty()) wrong.add(title + ": no query");
            for (JsonNode target : panel.path("targets")) {
                if (target.path("expr").asText().isBlank()) wrong.add(title + ": an empty query");
                if (!"${DS_PROMETHEUS}".equals(target.path("datasource").path("uid").asText())) wrong.add(title + ": a query's datasource " + target.path("datasource"));
            }
        }
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (!"${DS_PROMETHEUS}".equals(variable.path("datasource").path("uid").asText())) wrong.add("variable " + variable.path("name") + ": datasource");
        }
        assertTrue(ids.size() >= 9, "panels: " + ids);
        assertTrue(wrong.isEmpty(), String.join("; ", wrong));
    }

    private record Result(int exit, String output) { }

    private static Result run(Path directory, String... command) throws IOException, InterruptedException {
        Path output = Files.createTempFile("promtool", ".log");
        try {
            Process p = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not finish in 60 s");
            }
            return new Result(p.exitValue(), String.join(" ", command) + " (exit " + p.exitValue() + "):\n"
                    + new String(Files.readAllBytes(output), StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(output);
        }
    }
}

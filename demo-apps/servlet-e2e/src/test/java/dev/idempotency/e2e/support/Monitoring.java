package dev.idempotency.e2e.support;

import dev.idempotency.store.testing.LocalServers;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The monitoring files the repository ships (docs/monitoring: the alerting rules, their promtool unit tests, the Grafana
 * dashboard) and the Prometheus tools that test them, Debian's {@code prometheus} package ({@code promtool},
 * {@code prometheus}), which .ci/run installs.
 */
public final class Monitoring {
    public static final String RULES = "idempotency-alerts.yml";
    public static final String RULE_TESTS = "idempotency-alerts.test.yml";
    public static final String DASHBOARD = "idempotency-dashboard.json";

    /**
     * The comparison every alert expression ends with ({@code > 0.05}, {@code == 0}): the rules file promises one query
     * followed by one comparison with a number, so the tests can turn it into {@code bool} (the query's data) or break it.
     */
    public static final Pattern FINAL_COMPARISON = Pattern.compile("(==|!=|>=|<=|>|<)\\s*(-?[0-9][0-9.eE+-]*)\\s*$");

    private static final Pattern ALERT = Pattern.compile("^\\s*- alert:\\s*(\\S+)\\s*$");
    private static final Pattern EXPR = Pattern.compile("^(\\s*)expr:\\s*(.*)$");
    private static final Pattern FOR = Pattern.compile("(?m)^(\\s*)for:\\s*\\S+\\s*$");

    private Monitoring() {
    }

    /** docs/monitoring of the checkout under test. */
    public static Path directory() {
        String value = System.getProperty("e2e.monitoring");
        if (value == null) throw new IllegalStateException("system property e2e.monitoring is not set; run through Maven (failsafe)");
        return Path.of(value).toAbsolutePath().normalize();
    }

    /**
     * A tool of Debian's prometheus package on the PATH; when it is missing the test is skipped with the reason, or
     * fails under {@code -Didempotency.test.require-databases=true} (CI, where .ci/run installs it).
     */
    public static Path tool(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            File f = new File(dir, name);
            if (f.isFile() && f.canExecute()) return f.toPath();
        }
        LocalServers.unavailable(name + " is not installed (Debian: apt-get install prometheus, as .ci/run does)");
        throw new AssertionError("unreachable");
    }

    public static String read(String file) throws IOException {
        return new String(Files.readAllBytes(directory().resolve(file)), StandardCharsets.UTF_8);
    }

    /** The alerts of a rules file in order, each with its expression as written (the lines of a folded block joined). */
    public static Map<String, String> alerts(String rules) {
        Map<String, String> alerts = new LinkedHashMap<>();
        String[] lines = rules.split("\n", -1);
        String alert = null;
        for (int i = 0; i < lines.length; i++) {
            Matcher a = ALERT.matcher(lines[i]);
            if (a.matches()) {
                alert = a.group(1);
                continue;
            }
            Matcher e = EXPR.matcher(lines[i]);
            if (alert != null && e.matches()) {
                List<String> parts = new ArrayList<>();
                if (!e.group(2).startsWith(">") && !e.group(2).startsWith("|")) {
                    parts.add(e.group(2).trim());
                } else {
                    int indent = e.group(1).length();
                    while (i + 1 < lines.length && (lines[i + 1].isBlank() || indentOf(lines[i + 1]) > indent)) parts.add(lines[++i].trim());
                }
                alerts.put(alert, String.join(" ", parts).trim());
                alert = null;
            }
        }
        return alerts;
    }

    /**
     * The rules file with the final comparison of one alert's expression replaced by {@code replacement} (a comparison
     * such as {@code < -1}); fails when the alert or its comparison is not found.
     */
    public static String withComparison(String rules, String alertName, String replacement) {
        String[] lines = rules.split("\n", -1);
        boolean inAlert = false;
        int exprIndent = -1;
        for (int i = 0; i < lines.length; i++) {
            Matcher a = ALERT.matcher(lines[i]);
            if (a.matches()) {
                inAlert = a.group(1).equals(alertName);
                continue;
            }
            Matcher e = EXPR.matcher(lines[i]);
            if (inAlert && e.matches()) {
                exprIndent = e.group(1).length();
                int last = i;
                if (e.group(2).startsWith(">") || e.group(2).startsWith("|")) {
                    while (last + 1 < lines.length && !lines[last + 1].isBlank() && indentOf(lines[last + 1]) > exprIndent) last++;
                }
                Matcher c = FINAL_COMPARISON.matcher(lines[last]);
                if (!c.find()) throw new AssertionError("the expression of " + alertName + " does not end with a comparison: " + lines[last]);
                lines[last] = lines[last].substring(0, c.start()) + replacement;
                return String.join("\n", lines);
            }
        }
        throw new AssertionError("no alert " + alertName + " with an expression in the rules");
    }

    /** Every {@code for:} of a rules file set to {@code duration}; the expressions stay as they are. */
    public static String withFor(String rules, String duration) {
        Matcher m = FOR.matcher(rules);
        StringBuilder out = new StringBuilder();
        while (m.find()) m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + "for: " + duration));
        m.appendTail(out);
        return out.toString();
    }

    /** The expression with its final comparison as {@code bool}: the query's series, each 0 or 1, whatever their value. */
    public static String asBool(String expression) {
        Matcher c = FINAL_COMPARISON.matcher(expression);
        if (!c.find()) throw new AssertionError("the expression does not end with a comparison with a number: " + expression);
        return expression.substring(0, c.start()) + c.group(1) + " bool " + c.group(2);
    }

    private static int indentOf(String line) {
        int n = 0;
        while (n < line.length() && line.charAt(n) == ' ') n++;
        return n;
    }
}

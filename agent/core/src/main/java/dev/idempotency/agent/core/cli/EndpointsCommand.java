package dev.idempotency.agent.core.cli;

import dev.idempotency.agent.core.telemetry.EndpointInventory;
import dev.idempotency.agent.core.telemetry.Telemetry;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TimeZone;

/**
 * {@code endpoints PID} (the target JVM's MBean, through the attach API and its local JMX agent) and
 * {@code endpoints --metrics URL} (its Prometheus endpoint): the state-changing endpoints the agent saw, which take
 * requests without a key, which never saw one, and which entries of {@code idempotency.required} match no endpoint.
 * Exits 1 when such an entry exists.
 */
final class EndpointsCommand {
    private static final String[] HEAD = {"APPLICATION", "METHOD", "ENDPOINT", "KIND", "REQUIRED", "KEYED", "UNKEYED",
        "REPLAYED", "409", "422", "400-MISSING", "FIRST SEEN", "LAST SEEN", "NOTE"};

    private final CliConsole console;

    EndpointsCommand(CliConsole console) {
        this.console = console;
    }

    int run(CliArguments arguments) {
        arguments.allowOnly("endpoints", "metrics");
        String metrics = arguments.option("metrics");
        List<String[]> rows;
        List<String> unmatched;
        String source;
        if (metrics != null) {
            arguments.expectPositional("endpoints", 1);
            Scrape scrape = scrape(metrics);
            rows = scrape.rows;
            unmatched = scrape.unmatched;
            source = metrics;
        } else {
            if (arguments.positional().size() != 2) {
                throw new UsageException("endpoints needs the PID of the JVM (list-jvms shows them), or --metrics URL");
            }
            String pid = arguments.positional(1);
            if (!pid.matches("\\d+")) throw new UsageException("'" + pid + "' is not a process id");
            Object[] read = readMBean(pid);
            rows = new ArrayList<>();
            for (String row : (String[]) read[0]) rows.add(row.split("\t", -1));
            unmatched = Arrays.asList((String[]) read[1]);
            source = "JVM " + pid;
        }
        print(rows, unmatched, source);
        return unmatched.isEmpty() ? OperatorCli.OK : OperatorCli.FAILED;
    }

    private static Object[] readMBean(String pid) {
        AttachApi api = AttachApi.load();
        String url;
        try (AttachApi.Session vm = api.attach(pid)) {
            url = vm.localManagementUrl();
        }
        try (JMXConnector jmx = JMXConnectorFactory.connect(new JMXServiceURL(url))) {
            MBeanServerConnection mbeans = jmx.getMBeanServerConnection();
            ObjectName name = new ObjectName(Telemetry.OBJECT_NAME);
            if (!mbeans.isRegistered(name)) {
                throw new AttachApi.AttachFailure("JVM " + pid + " has no MBean " + Telemetry.OBJECT_NAME
                        + ": the agent is not running there, has served no request yet (it registers at the first),"
                        + " or runs with idempotency.jmx=false");
            }
            return new Object[] {mbeans.getAttribute(name, "Endpoints"),
                mbeans.getAttribute(name, "RequiredUnmatched")};
        } catch (AttachApi.AttachFailure e) {
            throw e;
        } catch (Exception e) {
            throw new AttachApi.AttachFailure("reading the agent's MBean in JVM " + pid + " failed: " + e);
        }
    }

    private void print(List<String[]> rows, List<String> unmatched, String source) {
        List<String[]> table = new ArrayList<>();
        table.add(HEAD);
        for (String[] r : rows) {
            long keyed = Long.parseLong(r[5]);
            long unkeyed = Long.parseLong(r[6]);
            table.add(new String[] {r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], time(r[11]),
                time(r[12]), note(keyed, unkeyed, r[4], Long.parseLong(r[10]))});
        }
        int[] widths = new int[HEAD.length];
        for (String[] line : table) {
            for (int i = 0; i < line.length; i++) widths[i] = Math.max(widths[i], line[i].length());
        }
        for (String[] line : table) {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < line.length; i++) {
                boolean number = i >= 5 && i <= 10;
                String cell = line[i];
                String pad = spaces(widths[i] - cell.length());
                out.append(number ? pad + cell : cell + (i == line.length - 1 ? "" : pad));
                if (i < line.length - 1) out.append("  ");
            }
            console.out.println(out.toString().replaceAll("\\s+$", ""));
        }
        console.out.println("(" + rows.size() + " endpoints from " + source + "; counts since the agent started)");
        if (unmatched.isEmpty()) {
            console.out.println("every entry of idempotency.required matches an endpoint");
        } else {
            console.out.println("idempotency.required entries that match no endpoint (they protect nothing; a typo?):");
            for (String entry : unmatched) console.out.println("  " + entry + "  <- UNMATCHED");
        }
    }

    private static String note(long keyed, long unkeyed, String required, long missing) {
        if (keyed == 0 && unkeyed == 0) return "never requested";
        boolean enforced = "path".equals(required) || "route".equals(required) || "yes".equals(required);
        if (unkeyed > missing && keyed == 0) return enforced ? "never keyed" : "never keyed, unprotected";
        if (unkeyed > missing) return "unkeyed requests";
        return "";
    }

    private static String time(String millis) {
        long t = Long.parseLong(millis);
        if (t == 0) return "-";
        SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss'Z'");
        format.setTimeZone(TimeZone.getTimeZone("UTC"));
        return format.format(new Date(t));
    }

    private static String spaces(int n) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) s.append(' ');
        return s.toString();
    }

    /** What a scrape of the metrics endpoint says about endpoints. */
    static final class Scrape {
        final List<String[]> rows = new ArrayList<>();
        final List<String> unmatched = new ArrayList<>();
    }

    private static Scrape scrape(String url) {
        try {
            HttpURLConnection connection = (HttpURLConnection) new URL(url).openConnection();
            connection.setConnectTimeout(5000);
            connection.setReadTimeout(10000);
            if (connection.getResponseCode() != 200) {
                throw new AttachApi.AttachFailure(url + " answered " + connection.getResponseCode());
            }
            try (InputStream in = connection.getInputStream()) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                byte[] buffer = new byte[8192];
                int n;
                while ((n = in.read(buffer)) > 0) bytes.write(buffer, 0, n);
                return parse(new String(bytes.toByteArray(), StandardCharsets.UTF_8));
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new AttachApi.AttachFailure("cannot read " + url + ": " + e);
        }
    }

    /** The endpoint samples of a Prometheus text exposition, as rows in {@link EndpointRow#COLUMNS} order. */
    static Scrape parse(String text) {
        Map<String, String[]> rows = new LinkedHashMap<>();
        Scrape scrape = new Scrape();
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || !line.startsWith("idempotency_")) continue;
            int brace = line.indexOf('{');
            int close = line.lastIndexOf('}');
            if (brace < 0 || close < brace) continue;
            String metric = line.substring(0, brace);
            Map<String, String> labels = labels(line.substring(brace + 1, close));
            String value = line.substring(close + 1).trim();
            long number = (long) Double.parseDouble(value);
            if (metric.equals("idempotency_required_unmatched")) {
                scrape.unmatched.add(labels.get("entry"));
                continue;
            }
            if (!metric.startsWith("idempotency_endpoint_")) continue;
            String id = labels.get("application") + "\u0000" + labels.get("method") + "\u0000" + labels.get("endpoint");
            String[] row = rows.get(id);
            if (row == null) {
                row = new String[] {labels.get("application"), labels.get("method"), labels.get("endpoint"),
                    labels.get("kind"), "no", "0", "0", "0", "0", "0", "0", "0", "0"};
                rows.put(id, row);
            }
            switch (metric) {
                case "idempotency_endpoint_requests_total":
                    row["present".equals(labels.get("key")) ? 5 : 6] = Long.toString(number);
                    break;
                case "idempotency_endpoint_answers_total":
                    String answer = labels.get("answer");
                    int column = "replayed".equals(answer) ? 7 : "conflict".equals(answer) ? 8
                            : "key_reused".equals(answer) ? 9 : 10;
                    row[column] = Long.toString(number);
                    break;
                case "idempotency_endpoint_required":
                    row[4] = value.equals("1") ? "yes" : value.equals("0.5") ? "partly" : "no";
                    break;
                case "idempotency_endpoint_first_seen_seconds":
                    row[11] = Long.toString(number * 1000);
                    break;
                case "idempotency_endpoint_last_seen_seconds":
                    row[12] = Long.toString(number * 1000);
                    break;
                default:
                    break;
            }
        }
        scrape.rows.addAll(rows.values());
        return scrape;
    }

    /** name="value" pairs, values unescaped per the exposition format. */
    static Map<String, String> labels(String text) {
        Map<String, String> labels = new LinkedHashMap<>();
        int i = 0;
        while (i < text.length()) {
            int equals = text.indexOf('=', i);
            if (equals < 0 || equals + 1 >= text.length() || text.charAt(equals + 1) != '"') break;
            String name = text.substring(i, equals).trim();
            StringBuilder value = new StringBuilder();
            int j = equals + 2;
            for (; j < text.length() && text.charAt(j) != '"'; j++) {
                char c = text.charAt(j);
                if (c == '\\' && j + 1 < text.length()) {
                    char next = text.charAt(++j);
                    value.append(next == 'n' ? '\n' : next);
                } else {
                    value.append(c);
                }
            }
            labels.put(name, value.toString());
            i = j + 1;
            if (i < text.length() && text.charAt(i) == ',') i++;
        }
        return labels;
    }
}

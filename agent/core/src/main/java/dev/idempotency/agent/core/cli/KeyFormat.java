package dev.idempotency.agent.core.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.idempotency.store.EffectMark;
import dev.idempotency.store.KeyRecord;
import dev.idempotency.store.KeyStatus;
import dev.idempotency.store.StoredResponse;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How keys look to an operator: a table, one key in full, or JSON for scripts. Times are the database's, in UTC. */
final class KeyFormat {
    private static final int HEX_PREVIEW_BYTES = 256;
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private KeyFormat() {
    }

    static String status(KeyStatus status) {
        return status.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static String table(List<KeyRecord> records, Instant now) {
        if (records.isEmpty()) return "no keys\n";
        String[] header = {"KEY", "SCOPE", "STATUS", "CREATED", "LEASE", "RESPONSE", "SIZE"};
        List<String[]> rows = new ArrayList<>();
        rows.add(header);
        for (KeyRecord r : records) {
            rows.add(new String[] {r.key(), r.scope(), status(r.status()), time(r.createdAt()), leaseLeft(r, now),
                    r.responseStatus().map(String::valueOf).orElse("-"),
                    r.responseBytes() < 0 ? "-" : bytes(r.responseBytes())});
        }
        int[] widths = new int[header.length];
        for (String[] row : rows) for (int i = 0; i < row.length; i++) widths[i] = Math.max(widths[i], row[i].length());
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                out.append(row[i]);
                if (i < row.length - 1) for (int pad = row[i].length(); pad < widths[i] + 2; pad++) out.append(' ');
            }
            out.append('\n');
        }
        return out.toString();
    }

    static String details(KeyRecord r, Instant now) {
        StringBuilder out = new StringBuilder();
        line(out, "key", r.key());
        line(out, "scope", r.scope());
        line(out, "status", status(r.status()) + meaning(r.status()));
        line(out, "fingerprint", r.fingerprint());
        line(out, "attempts", String.valueOf(r.attempts()));
        line(out, "created", time(r.createdAt()));
        line(out, "updated", time(r.updatedAt()));
        line(out, "expires", time(r.expiresAt()));
        line(out, "lease", leaseLeft(r, now));
        // why an outcome is unknown under recovery=transaction: what its owner had done or was about to do
        for (EffectMark mark : r.effects()) {
            line(out, "effect", effectKind(mark.kind()) + " at " + time(mark.markedAt()) + (mark.detail().isEmpty() ? "" : ": " + mark.detail()));
        }
        if (!r.response().isPresent()) {
            line(out, "response", "none stored");
            return out.toString();
        }
        StoredResponse response = r.response().get();
        line(out, "response", String.valueOf(response.status()));
        for (StoredResponse.Header h : response.headers()) out.append("  ").append(h.name()).append(": ").append(h.value()).append('\n');
        byte[] body = response.body();
        String text = asText(body);
        out.append("body (").append(bytes(body.length)).append(text == null ? ", binary; hex of the first "
                + Math.min(body.length, HEX_PREVIEW_BYTES) + " bytes" : "").append("):\n");
        out.append(text != null ? text : hex(body)).append('\n');
        return out.toString();
    }

    static String json(List<KeyRecord> records, Instant now) {
        return json(records, now, false);
    }

    static String json(List<KeyRecord> records, Instant now, boolean withResponse) {
        List<Map<String, Object>> all = new ArrayList<>();
        for (KeyRecord r : records) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("scope", r.scope());
            m.put("key", r.key());
            m.put("status", status(r.status()));
            m.put("fingerprint", r.fingerprint());
            m.put("attempts", r.attempts());
            m.put("createdAt", String.valueOf(r.createdAt()));
            m.put("updatedAt", String.valueOf(r.updatedAt()));
            m.put("expiresAt", String.valueOf(r.expiresAt()));
            m.put("leaseExpiresAt", r.leaseExpiresAt().map(String::valueOf).orElse(null));
            m.put("leaseLeftMillis", r.leaseExpiresAt().map(t -> Duration.between(now, t).toMillis()).orElse(null));
            m.put("responseStatus", r.responseStatus().orElse(null));
            m.put("responseBytes", r.responseBytes() < 0 ? null : r.responseBytes());
            if (!r.effects().isEmpty()) {
                List<Map<String, String>> effects = new ArrayList<>();
                for (EffectMark mark : r.effects()) {
                    Map<String, String> e = new LinkedHashMap<>();
                    e.put("kind", mark.kind().name().toLowerCase(java.util.Locale.ROOT));
                    e.put("detail", mark.detail());
                    e.put("markedAt", String.valueOf(mark.markedAt()));
                    effects.add(e);
                }
                m.put("effects", effects);
            }
            if (withResponse && r.response().isPresent()) {
                StoredResponse response = r.response().get();
                List<Map<String, String>> headers = new ArrayList<>();
                for (StoredResponse.Header h : response.headers()) {
                    Map<String, String> header = new LinkedHashMap<>();
                    header.put("name", h.name());
                    header.put("value", h.value());
                    headers.add(header);
                }
                m.put("responseHeaders", headers);
                String text = asText(response.body());
                if (text != null) m.put("responseText", text);
                else m.put("responseBase64", java.util.Base64.getEncoder().encodeToString(response.body()));
            }
            all.add(m);
        }
        try {
            return JSON.writeValueAsString(withResponse && all.size() == 1 ? all.get(0) : all);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String effectKind(EffectMark.Kind kind) {
        switch (kind) {
            case COMMIT: return "committed a transaction";
            case WRITE: return "about to write (autocommit)";
            case EXTERNAL: return "about to call out";
            case KEYED_CALL: return "about to call out with a derived key (safe to repeat)";
            default: return "not watched";
        }
    }

    static String leaseLeft(KeyRecord r, Instant now) {
        if (!r.leaseExpiresAt().isPresent()) return "-";
        Duration left = Duration.between(now, r.leaseExpiresAt().get());
        return left.isNegative() ? "expired " + human(left.negated()) + " ago" : human(left) + " left";
    }

    private static String meaning(KeyStatus status) {
        switch (status) {
            case IN_FLIGHT: return " (a request holds it and runs)";
            case COMPLETED: return " (its response is replayed)";
            case RETRYABLE: return " (the next request with it runs the application)";
            default: return " (a request's lease ran out without a result: whether the work happened is not known;"
                    + " keys resolve decides)";
        }
    }

    private static void line(StringBuilder out, String name, String value) {
        out.append(name);
        for (int pad = name.length(); pad < 13; pad++) out.append(' ');
        out.append(value).append('\n');
    }

    private static String time(Instant t) {
        return t == null ? "-" : t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String human(Duration d) {
        long s = d.getSeconds();
        if (s < 1) return d.toMillis() + "ms";
        if (s < 120) return s + "s";
        if (s < 7200) return (s / 60) + "m";
        if (s < 172800) return (s / 3600) + "h";
        return (s / 86400) + "d";
    }

    private static String bytes(int n) {
        return n + (n == 1 ? " byte" : " bytes");
    }

    /** The body as text when it is valid UTF-8 without control characters other than line breaks and tabs; else null. */
    static String asText(byte[] body) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(body)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isISOControl(c) && c != '\n' && c != '\r' && c != '\t') return null;
        }
        return text;
    }

    private static String hex(byte[] body) {
        StringBuilder out = new StringBuilder();
        int n = Math.min(body.length, HEX_PREVIEW_BYTES);
        for (int i = 0; i < n; i++) {
            if (i > 0) out.append(i % 32 == 0 ? '\n' : ' ');
            out.append(String.format("%02x", body[i] & 0xff));
        }
        if (body.length > n) out.append("\n...");
        return out.toString();
    }
}

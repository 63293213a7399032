package dev.idempotency.agent.core.protocol;

import java.io.UnsupportedEncodingException;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** {@code application/x-www-form-urlencoded} parameters, as a servlet container would present them. */
public final class FormBody {
    private FormBody() {
    }

    public static boolean isForm(String contentType) {
        return contentType != null && contentType.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded");
    }

    /** Query-string parameters first, then the body's, each in order, decoded with {@code charset}. */
    public static Map<String, String[]> parse(String query, byte[] body, String charset) {
        Charset cs = charset == null ? StandardCharsets.ISO_8859_1 : Charset.forName(charset);
        Map<String, List<String>> collected = new LinkedHashMap<>();
        if (query != null) collect(query, cs, collected);
        if (body != null && body.length > 0) collect(new String(body, StandardCharsets.ISO_8859_1), cs, collected);
        Map<String, String[]> parameters = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : collected.entrySet()) parameters.put(e.getKey(), e.getValue().toArray(new String[0]));
        return parameters;
    }

    private static void collect(String encoded, Charset charset, Map<String, List<String>> into) {
        for (String pair : encoded.split("&")) {
            if (pair.isEmpty()) continue;
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), charset);
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1), charset);
            List<String> values = into.get(name);
            if (values == null) into.put(name, values = new ArrayList<>());
            values.add(value);
        }
    }

    private static String decode(String s, Charset charset) {
        // The body was read as ISO-8859-1, which maps bytes to chars one to one; re-encode before decoding.
        try {
            String bytesAsChars = URLDecoder.decode(s, "ISO-8859-1");
            return new String(bytesAsChars.getBytes(StandardCharsets.ISO_8859_1), charset);
        } catch (UnsupportedEncodingException | IllegalArgumentException e) {
            return s;
        }
    }
}

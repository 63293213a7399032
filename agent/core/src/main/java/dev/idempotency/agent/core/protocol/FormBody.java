package dev.idempotency.agent.core.protocol;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Request parameters as a servlet container presents them to the application: the query string's first (decoded as
 * UTF-8, the URI encoding of every supported container's default configuration), then the form body's, decoded with
 * the request's character encoding at the moment the application first asks (so a filter's or servlet's
 * {@code setCharacterEncoding} is honoured). Names keep the order of their first appearance, values their order.
 */
public final class FormBody {
    private FormBody() {
    }

    public static boolean isForm(String contentType) {
        return MediaType.is(contentType, "application/x-www-form-urlencoded");
    }

    public static Map<String, String[]> parse(String query, byte[] body, String charset) {
        Map<String, List<String>> collected = queryParameters(query);
        if (body != null) collect(UrlEncoded.parse(body), charset(charset), collected);
        return toArrays(collected);
    }

    /** The request's charset, or ISO-8859-1 (the servlet default) when none is named or it is not supported. */
    public static Charset charset(String charset) {
        if (charset == null) return StandardCharsets.ISO_8859_1;
        try {
            return Charset.forName(charset.trim());
        } catch (RuntimeException e) {
            return StandardCharsets.ISO_8859_1;
        }
    }

    /** The query string's parameters, to which a body's can be added. */
    public static Map<String, List<String>> queryParameters(String query) {
        Map<String, List<String>> collected = new LinkedHashMap<>();
        if (query != null) collect(UrlEncoded.parse(query.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8, collected);
        return collected;
    }

    static void collect(List<UrlEncoded.Pair> pairs, Charset charset, Map<String, List<String>> into) {
        for (UrlEncoded.Pair pair : pairs) add(into, new String(pair.name().bytes(), charset), new String(pair.value().bytes(), charset));
    }

    public static void add(Map<String, List<String>> into, String name, String value) {
        List<String> values = into.get(name);
        if (values == null) into.put(name, values = new ArrayList<>());
        values.add(value);
    }

    public static Map<String, String[]> toArrays(Map<String, List<String>> collected) {
        Map<String, String[]> parameters = new LinkedHashMap<>();
        for (Map.Entry<String, List<String>> e : collected.entrySet()) parameters.put(e.getKey(), e.getValue().toArray(new String[0]));
        return parameters;
    }
}

package dev.idempotency.demo.legacy;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import javax.servlet.http.HttpServletResponse;

/** The hand-rolled JSON of a legacy application: string escaping and writing a UTF-8 answer. */
final class Json {
    private Json() {
    }

    static String string(String value) {
        if (value == null) return "null";
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
            }
        }
        return out.append('"').toString();
    }

    static String strings(List<String> values) {
        StringBuilder out = new StringBuilder("[");
        for (String v : values) {
            if (out.length() > 1) out.append(',');
            out.append(string(v));
        }
        return out.append(']').toString();
    }

    static String strings(String[] values) {
        return strings(values == null ? java.util.Collections.<String>emptyList() : java.util.Arrays.asList(values));
    }

    static void write(HttpServletResponse resp, int status, String json) throws IOException {
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setCharacterEncoding("UTF-8");
        PrintWriter out = resp.getWriter();
        out.print(json);
    }
}

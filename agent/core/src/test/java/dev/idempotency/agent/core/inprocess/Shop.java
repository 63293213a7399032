package dev.idempotency.agent.core.inprocess;

import dev.idempotency.agent.core.inprocess.AppLedger.Written;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What the test applications do, whichever servlet API or framework serves them: every call is a run counted under the
 * request's reference, and its answer is made of what the request carried and a fresh number (so a second run never
 * writes the same bytes), with a non-ASCII note that the response's encoding must survive. The servlets and the
 * JAX-RS resource only translate between their API and these calls.
 */
final class Shop {
    static final String CONTEXT = "/shop";
    static final String JSON = "application/json;charset=UTF-8";

    private Shop() {
    }

    /** POST /payments: a JSON payment, held first when the test armed a hold for its reference. */
    static Written payment(String ref, String json) {
        long n = AppLedger.ran(ref);
        Holds.pass(ref);
        Map<String, String> headers = Map.of("Location", CONTEXT + "/payments/pay_" + n, "X-Payment-Id", "pay_" + n,
                "Content-Type", JSON);
        String body = "{\"payment\":\"pay_" + n + "\",\"request\":" + json + ",\"note\":\"reçu n° " + n + " €\"}";
        return AppLedger.wrote(ref, new Written(201, headers, utf8(body)));
    }

    /** POST /payments?fail=true: the application runs and fails; the servlet answers 500. */
    static void failedPayment(String ref) {
        AppLedger.ran(ref);
    }

    /** POST /transfers: a form, echoed field by field as the servlet read it. */
    static Written transfer(String ref, String from, String to, String amount, String note) {
        long n = AppLedger.ran(ref);
        Map<String, String> headers = Map.of("Location", CONTEXT + "/transfers/tr_" + n, "Content-Type", JSON);
        String body = "{\"transfer\":\"tr_" + n + "\"," + transferFields(from, to, amount, note) + "}";
        return AppLedger.wrote(ref, new Written(201, headers, utf8(body)));
    }

    /** The fields of a transfer as its answer shows them. */
    static String transferFields(String from, String to, String amount, String note) {
        return "\"from\":" + quoted(from) + ",\"to\":" + quoted(to) + ",\"amount\":" + quoted(amount)
                + ",\"note\":" + quoted(note);
    }

    /** POST /async-payments: accepted on a thread of the application's own. */
    static Written asyncPayment(String ref, String amount) {
        long n = AppLedger.ran(ref);
        return AppLedger.wrote(ref, new Written(202, Map.of("X-Payment-Id", "ach_" + n, "Content-Type", JSON),
                utf8("{\"payment\":\"ach_" + n + "\",\"amount\":" + quoted(amount) + ",\"state\":\"accepted\"}")));
    }

    /** POST /api/orders (JAX-RS). */
    static Written order(String ref, String json) {
        long n = AppLedger.ran(ref);
        return AppLedger.wrote(ref, new Written(201, Map.of("X-Order-Id", "ord_" + n, "Content-Type", JSON),
                utf8("{\"order\":\"ord_" + n + "\",\"request\":" + json + ",\"note\":\"commandé €\"}")));
    }

    static String quoted(String value) {
        if (value == null) return "null";
        StringBuilder json = new StringBuilder("\"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') json.append('\\').append(c);
            else if (c < 0x20) json.append(String.format("\\u%04x", (int) c));
            else json.append(c);
        }
        return json.append('"').toString();
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

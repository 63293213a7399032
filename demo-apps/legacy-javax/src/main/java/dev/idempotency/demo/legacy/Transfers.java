package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import javax.servlet.ServletRequest;

/** A transfer as both transfer servlets take it: form fields from, to, amount, note and repeated item/qty pairs. */
final class Transfers {
    private Transfers() {
    }

    /** Records the transfer under {@code kind} and answers what the application saw, in the order it saw it. */
    static String execute(String kind, ServletRequest req) {
        String amount = req.getParameter("amount");
        long id = Ledger.record(kind, amount == null ? 0 : parseLong(amount), "eur");
        return "{\"transfer\":" + id + ",\"from\":" + Json.string(req.getParameter("from")) + ",\"to\":" + Json.string(req.getParameter("to"))
                + ",\"amount\":" + Json.string(amount) + ",\"items\":" + Json.strings(req.getParameterValues("item"))
                + ",\"qtys\":" + Json.strings(req.getParameterValues("qty")) + ",\"note\":" + Json.string(req.getParameter("note")) + "}";
    }

    private static long parseLong(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}

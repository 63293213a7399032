package dev.idempotency.demo.orders.spring;

import dev.idempotency.demo.ledger.Ledger;
import java.net.URI;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The orders service as a Spring application: the same HTTP contract as the JAX-RS one. It uses no servlet type, so
 * the same class runs in a Spring 5 WAR (javax) and a Spring Boot 3 jar (jakarta).
 */
@RestController
@RequestMapping("/api")
public class OrdersController {
    private static final Pattern AMOUNT = Pattern.compile("\"amount\"\\s*:\\s*(\\d+)");
    private static final MediaType JSON_UTF8 = MediaType.parseMediaType("application/json;charset=UTF-8");

    @PostMapping("/orders/{id}/payments")
    public ResponseEntity<String> pay(@PathVariable("id") String orderId, @RequestParam(value = "fail", defaultValue = "false") boolean fail,
                                      @RequestHeader(value = "X-Delay-Ms", required = false) Long delayMs,
                                      @RequestBody String body) throws InterruptedException {
        if (fail) {
            Ledger.record("failed-payment", 0, "eur");
            return ResponseEntity.status(500).contentType(MediaType.APPLICATION_JSON).body("{\"error\":\"card processor unavailable\"}");
        }
        Matcher amount = AMOUNT.matcher(body);
        if (!amount.find()) return ResponseEntity.badRequest().contentType(MediaType.APPLICATION_JSON).body("{\"error\":\"amount is required\"}");
        long id = Ledger.record("payment", Long.parseLong(amount.group(1)), "eur");
        if (delayMs != null) Thread.sleep(delayMs);
        return ResponseEntity.created(URI.create("orders/" + orderId + "/payments/pay_" + id)).contentType(JSON_UTF8)
                .body("{\"order\":\"" + orderId + "\",\"payment\":\"pay_" + id + "\",\"amount\":" + amount.group(1)
                        + ",\"note\":\"payé – merci €\"}");
    }

    @PostMapping("/refunds/{id}")
    public ResponseEntity<String> refund(@PathVariable("id") String paymentId) {
        long id = Ledger.record("refund", 100, "eur");
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body("{\"refund\":\"re_" + id + "\",\"payment\":\"" + paymentId + "\"}");
    }

    @GetMapping("/counters")
    public ResponseEntity<String> counters() {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body("{\"payment\":" + Ledger.count("payment")
                + ",\"failed-payment\":" + Ledger.count("failed-payment") + ",\"refund\":" + Ledger.count("refund")
                + ",\"answer\":" + Ledger.count("answer") + "}");
    }
}

package dev.idempotency.demo.legacy;

import dev.idempotency.demo.ledger.Ledger;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.servlet.AsyncContext;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * POST /slow-async?ticket=T: asynchronous work that outlives its request. The request times out after 1 s (the
 * container answers the client however it does); the worker waits until POST /slow-async/release?ticket=T (at most
 * 10 s), then records "slow", writes 201 with its sequence number and completes, catching what a container throws for
 * a request that already timed out. GET /slow-async/status?ticket=T says whether a worker is waiting and whether it
 * finished.
 */
public class SlowAsyncServlet extends HttpServlet {
    private static final Map<String, CountDownLatch> RELEASES = new ConcurrentHashMap<>();
    private static final Map<String, String> STATES = new ConcurrentHashMap<>();

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String ticket = req.getParameter("ticket") == null ? "default" : req.getParameter("ticket");
        if ("/release".equals(req.getPathInfo())) {
            RELEASES.computeIfAbsent(ticket, t -> new CountDownLatch(1)).countDown();
            Json.write(resp, 200, "{\"released\":" + Json.string(ticket) + "}");
            return;
        }
        CountDownLatch release = RELEASES.computeIfAbsent(ticket, t -> new CountDownLatch(1));
        AsyncContext async = req.startAsync();
        async.setTimeout(1000);
        HttpServletResponse response = (HttpServletResponse) async.getResponse();
        STATES.put(ticket, "held");
        Thread worker = new Thread(() -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long id = Ledger.record("slow", 0, "eur");
            try {
                Json.write(response, 201, "{\"slow\":" + id + ",\"ticket\":" + Json.string(ticket) + "}");
            } catch (IOException | RuntimeException e) {
                log("slow-async " + ticket + ": the response was gone: " + e);
            }
            try {
                async.complete();
            } catch (IllegalStateException e) {
                log("slow-async " + ticket + ": already timed out: " + e);
            }
            STATES.put(ticket, "done");
        }, "slow-async-" + ticket);
        worker.setDaemon(true);
        worker.start();
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String ticket = req.getParameter("ticket") == null ? "default" : req.getParameter("ticket");
        String state = STATES.get(ticket);
        Json.write(resp, 200, "{\"ticket\":" + Json.string(ticket) + ",\"state\":" + Json.string(state == null ? "none" : state) + "}");
    }
}

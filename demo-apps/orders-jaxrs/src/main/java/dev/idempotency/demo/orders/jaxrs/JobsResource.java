package dev.idempotency.demo.orders.jaxrs;

import dev.idempotency.demo.ledger.Ledger;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.ws.rs.GET;
import javax.ws.rs.POST;
import javax.ws.rs.Path;
import javax.ws.rs.QueryParam;
import javax.ws.rs.container.AsyncResponse;
import javax.ws.rs.container.Suspended;
import javax.ws.rs.core.Response;

/**
 * POST /api/jobs?ticket=T: a suspended resource whose work outlives the runtime's 1 s timeout (the runtime answers
 * 503). The worker waits for POST /api/jobs/release?ticket=T (at most 10 s), records "job" and tries to resume.
 * GET /api/jobs/status?ticket=T says none, held or done.
 */
@Path("/jobs")
public class JobsResource {
    private static final Map<String, CountDownLatch> RELEASES = new ConcurrentHashMap<>();
    private static final Map<String, String> STATES = new ConcurrentHashMap<>();

    @POST
    public void start(@QueryParam("ticket") String ticket, @Suspended AsyncResponse response) {
        CountDownLatch release = RELEASES.computeIfAbsent(ticket, t -> new CountDownLatch(1));
        response.setTimeout(1, TimeUnit.SECONDS);
        STATES.put(ticket, "held");
        Thread worker = new Thread(() -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            long id = Ledger.record("job", 0, "eur");
            response.resume(Response.status(201).type("application/json").entity("{\"job\":" + id + "}").build());
            STATES.put(ticket, "done");
        }, "job-" + ticket);
        worker.setDaemon(true);
        worker.start();
    }

    @POST
    @Path("/release")
    public String release(@QueryParam("ticket") String ticket) {
        RELEASES.computeIfAbsent(ticket, t -> new CountDownLatch(1)).countDown();
        return "released";
    }

    @GET
    @Path("/status")
    public String status(@QueryParam("ticket") String ticket) {
        String state = STATES.get(ticket);
        return state == null ? "none" : state;
    }
}

package dev.idempotency.agent.core.telemetry;

import dev.idempotency.agent.core.protocol.RequiredEndpoints;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoint inventory: counts per endpoint, the caps and their overflow bucket, and what `required` matches. */
class EndpointInventoryTest {

    private static Collection<EndpointInventory.Mapping> shop() {
        return Arrays.asList(new EndpointInventory.Mapping("transfers", Collections.singletonList("/transfers"), true),
                new EndpointInventory.Mapping("slow", Collections.singletonList("/slow-async/*"), true),
                new EndpointInventory.Mapping("legacy", Collections.singletonList("*.do"), true),
                new EndpointInventory.Mapping("default", Collections.singletonList("/"), false));
    }

    private static Map<String, EndpointRow> byEndpoint(EndpointInventory inventory) {
        return inventory.rows().stream().collect(Collectors.toMap(r -> r.application + " " + r.method + " " + r.endpoint,
                Function.identity()));
    }

    @Test
    void countsEachRequestForItsEndpointAndLabelsItByMapping() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse("/shop/transfers"), 10, 100);
        EndpointInventory.Application app = inventory.register("/shop", EndpointInventoryTest::shop);
        EndpointInventory.Endpoint transfers = app.servlet("POST", "transfers");
        assertSame(transfers, app.servlet("POST", "transfers"), "one endpoint per servlet and method");
        assertSame(app, inventory.application("/shop"));
        transfers.unkeyed();
        transfers.unkeyed();
        transfers.keyMissing();
        transfers.keyed(Outcome.EXECUTED);
        transfers.keyed(Outcome.REPLAYED);
        transfers.keyed(Outcome.MISMATCH);
        transfers.keyed(Outcome.IN_FLIGHT);
        transfers.keyed(Outcome.UNKNOWN);
        app.servlet("PATCH", "slow").keyed(Outcome.EXECUTED);
        app.learn(Collections.singletonList(new EndpointInventory.Mapping(EndpointInventory.FILTER + "x.ActionFilter",
                Collections.singletonList("/actions/*"), false, true)));
        app.servlet("POST", EndpointInventory.FILTER + "x.ActionFilter").unkeyed();
        app.servlet("POST", EndpointInventory.FILTER + "y.Unregistered").unkeyed();

        Map<String, EndpointRow> rows = byEndpoint(inventory);
        EndpointRow row = rows.get("/shop POST /transfers");
        assertEquals(5, row.keyed);
        assertEquals(2, row.unkeyed);
        assertEquals(1, row.replayed);
        assertEquals(2, row.conflicts);
        assertEquals(1, row.mismatches);
        assertEquals(1, row.keyMissing);
        assertEquals("path", row.required);
        assertEquals("servlet", row.kind);
        assertTrue(row.firstSeen > 0 && row.lastSeen >= row.firstSeen);
        assertEquals(1, rows.get("/shop PATCH /slow-async/*").keyed);
        assertEquals("no", rows.get("/shop PATCH /slow-async/*").required);
        // the declared mapping no request reached is listed once, without a method; the container's own is not
        EndpointRow declared = rows.get("/shop - *.do");
        assertEquals(0, declared.keyed + declared.unkeyed);
        assertEquals(0, declared.firstSeen);
        assertNull(rows.get("/shop - /"));
        assertNull(rows.get("/shop - /transfers"), "a requested mapping is not listed again as declared");
        assertEquals("filter", rows.get("/shop POST /actions/*").kind);
        assertEquals(1, rows.get("/shop POST /actions/*").unkeyed);
        assertEquals("filter", rows.get("/shop POST filter y.Unregistered").kind);
        assertEquals(5, rows.size(), rows.keySet().toString());
    }

    @Test
    void beyondTheCapsRequestsCountInOneOverflowBucket() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse(""), 2, 3);
        EndpointInventory.Application a = inventory.register("/a", null);
        EndpointInventory.Endpoint a1 = a.servlet("POST", "one");
        EndpointInventory.Endpoint a2 = a.servlet("POST", "two");
        EndpointInventory.Endpoint a3 = a.servlet("POST", "three");
        assertSame(inventory.overflow(), a3, "the application's cap");
        EndpointInventory.Application b = inventory.register("/b", null);
        EndpointInventory.Endpoint b1 = b.route("POST /orders/{id}", "/b/orders/1");
        EndpointInventory.Endpoint b2 = b.route("POST /refunds/{id}", "/b/refunds/1");
        assertSame(inventory.overflow(), b2, "the overall cap");
        assertTrue(a1 != a2 && a1 != inventory.overflow() && b1 != inventory.overflow());
        assertSame(b1, b.route("POST /orders/{id}", "/b/orders/2"));
        EndpointInventory.Application c = inventory.register("/c", null);
        assertSame(c, inventory.register("/c", null));
        assertNull(inventory.register("/d", null), "no more applications than endpoints");
        a3.unkeyed();
        b2.keyed(Outcome.EXECUTED);
        inventory.overflow().unkeyed();

        List<EndpointRow> rows = inventory.rows();
        assertEquals(4, rows.size(), "three endpoints and the overflow bucket");
        EndpointRow overflow = rows.get(rows.size() - 1);
        assertEquals(EndpointInventory.OVERFLOW, overflow.application);
        assertEquals(EndpointInventory.OVERFLOW, overflow.endpoint);
        assertEquals(1, overflow.keyed);
        assertEquals(2, overflow.unkeyed);
    }

    @Test
    void requiredEntriesThatMatchNoEndpointAreReported() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse(
                "/shop/transfers,/shop/tranfsers,/shop/slow-async/**,/shop/x.do,/api/orders/*/payments,"
                        + "POST /orders/{id}/payments,POST /refunds/{id},POST /refund/{id},/nowhere/**"), 10, 100);
        inventory.register("/shop", EndpointInventoryTest::shop);
        assertTrue(inventory.unmatchedRequired().contains("/api/orders/*/payments"), "before any JAX-RS request");
        inventory.declareRoutes(Collections.singletonList("POST /refunds/{id}"));
        EndpointInventory.Application api = inventory.register("/api", null);
        EndpointInventory.Endpoint pay = api.route("POST /orders/{id}/payments", "/api/orders/o-1/payments");
        assertEquals("route", byEndpoint(inventory).get("/api POST /orders/{id}/payments").required);

        assertEquals(Arrays.asList("/shop/tranfsers", "/nowhere/**", "POST /refund/{id}"), inventory.unmatchedRequired());
        assertEquals("route", byEndpoint(inventory).get("- POST /refunds/{id}").required, "declared, never requested");
        assertEquals("path", byEndpoint(inventory).get("/shop - /slow-async/*").required);
        assertEquals("partly", byEndpoint(inventory).get("/shop - *.do").required, "one path of an extension mapping");
        pay.unkeyed();
        assertEquals(1, byEndpoint(inventory).get("/api POST /orders/{id}/payments").unkeyed);
    }

    @Test
    void aWildcardMappingIsPartlyRequiredByANarrowerPattern() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse("/shop/slow-async/charges/*"), 10, 100);
        EndpointInventory.Application app = inventory.register("/shop", EndpointInventoryTest::shop);
        assertEquals("partly", byEndpoint(inventory).get("/shop - /slow-async/*").required);
        assertEquals("no", byEndpoint(inventory).get("/shop - /transfers").required);
        assertTrue(inventory.unmatchedRequired().isEmpty());
        app.servlet("POST", "unregistered").unkeyed();
        assertEquals("no", byEndpoint(inventory).get("/shop POST servlet unregistered").required);
    }

    @Test
    void aFailureToReadTheRegistrationsIsCountedAndTheApplicationStillCounts() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse(""), 10, 100);
        EndpointInventory.Application app = inventory.register("", () -> {
            throw new UnsupportedOperationException("a container that will not say");
        });
        assertEquals(1, inventory.failures());
        app.servlet("POST", "s").unkeyed();
        assertEquals("/", inventory.rows().get(0).application);
        assertEquals("servlet s", inventory.rows().get(0).endpoint);
    }

    @Test
    void rowsTravelAsTabSeparatedLinesWithoutTabsInTheirLabels() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse(""), 10, 100);
        inventory.register("/a\tb", null).servlet("POST", "s\nt").unkeyed();
        String[] tsv = inventory.rows().get(0).tsv().split("\t", -1);
        assertEquals(EndpointRow.COLUMNS.size(), tsv.length);
        assertEquals("/a b", tsv[0]);
        assertEquals("servlet s t", tsv[2]);
        assertEquals("1", tsv[6]);
    }

    /** Counting a request (the lookups by application, method and servlet, then the adder) allocates nothing. */
    @Test
    void countingARequestAllocatesNothing() {
        EndpointInventory inventory = new EndpointInventory(RequiredEndpoints.parse(""), 10, 100);
        inventory.register("/shop", EndpointInventoryTest::shop).servlet("POST", "transfers");
        // strings as a container hands them over: equal, not the inventory's own instances
        String context = new String("/shop");
        String method = new String("POST");
        String servlet = new String("transfers");
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long id = Thread.currentThread().getId();
        for (int i = 0; i < 200_000; i++) inventory.application(context).servlet(method, servlet).unkeyed(); // warm-up
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 1_000_000; i++) inventory.application(context).servlet(method, servlet).unkeyed();
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 100_000, allocated + " bytes for a million requests");
        assertEquals(1_200_000, byEndpoint(inventory).get("/shop POST /transfers").unkeyed);
    }
}

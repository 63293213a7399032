package dev.idempotency.agent.core.gate;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ContainerRenderedTest {

    @Test
    void aSendErrorKeepsWhetherItHadAMessageAndTheMessageAsGiven() {
        String[] none = ContainerRendered.error(null);
        String[] empty = ContainerRendered.error("");
        String[] message = ContainerRendered.error("=taken; try ;clear later");
        assertTrue(ContainerRendered.isError(none));
        assertNull(ContainerRendered.errorMessage(none));
        assertEquals("", ContainerRendered.errorMessage(empty));
        assertEquals("=taken; try ;clear later", ContainerRendered.errorMessage(message));
    }

    @Test
    void aRedirectKeepsItsLocationAsGivenAndWhetherItClearsTheBuffer() {
        String[] cleared = ContainerRendered.redirect("done;x=1?a=b;c", true);
        String[] kept = ContainerRendered.redirect("keep;then", false);
        assertFalse(ContainerRendered.isError(cleared));
        assertEquals("done;x=1?a=b;c", ContainerRendered.redirectLocation(cleared));
        assertTrue(ContainerRendered.redirectClearsBuffer(cleared));
        assertEquals("keep;then", ContainerRendered.redirectLocation(kept));
        assertFalse(ContainerRendered.redirectClearsBuffer(kept));
    }

    @Test
    void withoutTheContainerTheMarkersGoAndARedirectLeavesItsLocation() {
        List<String[]> headers = Arrays.asList(new String[] {"X-Order", "7"}, ContainerRendered.error("gone"),
                ContainerRendered.redirect("receipts/7", true));
        List<String[]> plain = ContainerRendered.withoutMarkers(headers);
        assertEquals(2, plain.size());
        assertEquals(Arrays.asList("X-Order", "7"), Arrays.asList(plain.get(0)));
        assertEquals(Arrays.asList("Location", "receipts/7"), Arrays.asList(plain.get(1)));
        assertTrue(ContainerRendered.isMarker("x-idempotency-agent-send-error"), "header names compare without case");
    }
}

package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PathPatternsTest {
    @Test
    void singleStarStaysWithinASegmentDoubleStarCrossesThem() {
        PathPatterns p = PathPatterns.parse("/shop/*/pay, /api/**");
        assertTrue(p.matches("/shop/orders/pay"));
        assertFalse(p.matches("/shop/a/b/pay"));
        assertTrue(p.matches("/api"));
        assertTrue(p.matches("/api/v1/payments"));
        assertFalse(p.matches("/apiary"));
    }

    @Test
    void exactPathsMatchExactlyAndRegexCharactersAreLiteral() {
        PathPatterns p = PathPatterns.parse("/a.b");
        assertTrue(p.matches("/a.b"));
        assertFalse(p.matches("/axb"));
    }

    @Test
    void emptyListsMatchNothingAndRelativePatternsAreRejected() {
        assertTrue(PathPatterns.parse("").isEmpty());
        assertFalse(PathPatterns.parse(" , ").matches("/x"));
        assertNull(PathPatterns.parse("payments"));
    }
}

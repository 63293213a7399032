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

    /**
     * A path is matched as decoded ({@link RequestPath#normalise}), so it may hold line breaks ({@code %0A}): the default
     * include must still cover it, else such a keyed request would run unprotected.
     */
    @Test
    void wildcardsMatchDecodedLineBreaksAndEveryOtherCharacter() {
        String decoded = RequestPath.normalise("/api/a%0Ab%0D%C2%85c%E2%80%A8");
        assertTrue(decoded.contains("\n"), decoded);
        assertTrue(PathPatterns.parse("/**").matches(decoded));
        assertTrue(PathPatterns.parse("/api/**").matches(decoded));
        assertTrue(PathPatterns.parse("/api/*").matches(decoded));
        assertTrue(PathPatterns.parse("/**").matches("/"));
        assertTrue(PathPatterns.parse("/x/**, /**").matches("/y\r\n"));
        assertFalse(PathPatterns.parse("/api/**").matches("/apix\n"));
    }
}

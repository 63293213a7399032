package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdempotencyKeyParserTest {
    private final IdempotencyKeyParser parser = new IdempotencyKeyParser(255);

    @Test
    void aQuotedSfStringAndTheBareValueAreTheSameKey() {
        assertEquals("abc", parser.parse("\"abc\"").key());
        assertEquals("abc", parser.parse("abc").key());
        assertEquals("abc", parser.parse("  abc\t").key());
    }

    @Test
    void sfStringEscapesAreHonoured() {
        assertEquals("a\"b\\c", parser.parse("\"a\\\"b\\\\c\"").key());
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   ", "\"\"", "\"abc", "\"a\"b", "\"a\\nb\"", "\"a\\", "caf\u00e9", "a\u0001b", "\"caf\u00e9\""})
    void malformedOrNonAsciiKeysAreRejectedWithAReason(String field) {
        IdempotencyKeyParser.Result result = parser.parse(field);
        assertFalse(result.valid(), field);
        assertTrue(result.problem().contains("Idempotency-Key"), result.problem());
    }

    @Test
    void theLengthLimitIsInclusive() {
        IdempotencyKeyParser short10 = new IdempotencyKeyParser(10);
        assertTrue(short10.parse("0123456789").valid());
        IdempotencyKeyParser.Result tooLong = short10.parse("0123456789a");
        assertFalse(tooLong.valid());
        assertTrue(tooLong.problem().contains("11 characters") && tooLong.problem().contains("at most 10"), tooLong.problem());
    }

    @Test
    void twoFieldsAreRejected() {
        IdempotencyKeyParser.Result result = parser.parse(Arrays.asList("a", "a"));
        assertFalse(result.valid());
        assertTrue(result.problem().contains("2 Idempotency-Key fields"), result.problem());
    }
}

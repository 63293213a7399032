package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class MediaTypeTest {

    @Test
    void parametersAreFoundByNameInAnyCaseWithQuotesRemoved() {
        assertEquals("utf-8", MediaType.parameter("application/json; charset=utf-8", "charset"));
        assertEquals("UTF-8", MediaType.parameter("text/plain;CHARSET=UTF-8;format=flowed", "charset"));
        assertEquals("a b", MediaType.parameter("multipart/form-data; boundary=\"a b\"", "boundary"));
        assertEquals("flowed", MediaType.parameter("text/plain;charset=utf-8; format = flowed", "format"));
    }

    @Test
    void aTypeWithoutParametersHasNone() {
        assertNull(MediaType.parameter(null, "charset"));
        assertNull(MediaType.parameter("application/json", "charset"));
        assertNull(MediaType.parameter("application/json;", "charset"));
        assertNull(MediaType.parameter("application/json; charset", "charset"));
    }

    // What a fingerprint depends on, so it must not change: a parameter written where the type should be is still read.
    @Test
    void aParameterWithoutATypeIsStillRead() {
        assertEquals("utf-8", MediaType.parameter("charset=utf-8", "charset"));
        assertEquals("latin1", MediaType.parameter(" charset = latin1 ", "charset"));
    }

    @Test
    void theEssenceIsTheTypeInLowerCaseWithoutParameters() {
        assertEquals("application/json", MediaType.essence(" Application/JSON ; charset=utf-8"));
        assertEquals("text/plain", MediaType.essence("text/plain"));
    }
}

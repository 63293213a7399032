package dev.idempotency.agent.core.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProblemTest {
    @Test
    void everyProblemIsAnRfc9457DocumentWithItsOwnStableType() throws Exception {
        Set<String> types = new HashSet<>();
        for (Problem p : Problem.values()) {
            JsonNode doc = new ObjectMapper().readTree(p.body("detail with \"quotes\" and ünïcode"));
            assertEquals(p.type(), doc.get("type").asText());
            assertTrue(doc.get("type").asText().startsWith("urn:idempotency-agent:problem:"));
            assertEquals(p.status(), doc.get("status").asInt());
            assertEquals(p.title(), doc.get("title").asText());
            assertEquals("detail with \"quotes\" and ünïcode", doc.get("detail").asText());
            assertTrue(types.add(p.type()), "duplicate type " + p.type());
        }
    }
}

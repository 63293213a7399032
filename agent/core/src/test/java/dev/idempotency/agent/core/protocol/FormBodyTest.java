package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FormBodyTest {
    @Test
    void queryThenBodyParametersInOrderDecodedWithTheRequestCharset() {
        Map<String, String[]> p = FormBody.parse("a=1&b=x", "b=y&name=J%C3%BCrgen+M&flag".getBytes(StandardCharsets.US_ASCII), "UTF-8");
        assertArrayEquals(new String[] {"1"}, p.get("a"));
        assertArrayEquals(new String[] {"x", "y"}, p.get("b"));
        assertEquals("Jürgen M", p.get("name")[0]);
        assertEquals("", p.get("flag")[0]);
        assertEquals("[a, b, name, flag]", p.keySet().toString());
    }

    @Test
    void onlyUrlencodedBodiesAreForms() {
        assertTrue(FormBody.isForm("application/x-www-form-urlencoded; charset=UTF-8"));
        assertTrue(!FormBody.isForm("multipart/form-data; boundary=x") && !FormBody.isForm(null));
    }
}

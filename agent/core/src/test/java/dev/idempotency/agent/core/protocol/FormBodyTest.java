package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FormBodyTest {
    @Test
    void queryThenBodyParametersInOrderTheBodyDecodedWithTheRequestCharset() {
        Map<String, String[]> p = FormBody.parse("a=1&b=x", "b=y&name=J%C3%BCrgen+M&flag".getBytes(StandardCharsets.US_ASCII), "UTF-8");
        assertArrayEquals(new String[] {"1"}, p.get("a"));
        assertArrayEquals(new String[] {"x", "y"}, p.get("b"));
        assertEquals("Jürgen M", p.get("name")[0]);
        assertEquals("", p.get("flag")[0]);
        assertEquals("[a, b, name, flag]", p.keySet().toString());
    }

    @Test
    void theCharsetDecidesHowBodyBytesRead() {
        byte[] body = "name=J%C3%BCrgen".getBytes(StandardCharsets.US_ASCII);
        assertEquals("Jürgen", FormBody.parse(null, body, "UTF-8").get("name")[0]);
        assertEquals("JÃ¼rgen", FormBody.parse(null, body, null).get("name")[0], "the servlet default is ISO-8859-1");
        assertEquals("JÃ¼rgen", FormBody.parse(null, body, "x-no-such-charset").get("name")[0]);
    }

    @Test
    void theQueryStringDecodesAsUtf8WhateverTheBodyCharset() {
        assertEquals("é", FormBody.parse("q=%C3%A9", new byte[0], "ISO-8859-1").get("q")[0]);
    }

    @Test
    void repeatedFieldsKeepTheirOrder() {
        Map<String, String[]> p = FormBody.parse(null, "item=B&qty=1&item=A&qty=2".getBytes(StandardCharsets.US_ASCII), "UTF-8");
        assertArrayEquals(new String[] {"B", "A"}, p.get("item"));
        assertArrayEquals(new String[] {"1", "2"}, p.get("qty"));
    }

    @Test
    void onlyUrlencodedBodiesAreForms() {
        assertTrue(FormBody.isForm("application/x-www-form-urlencoded; charset=UTF-8"));
        assertTrue(FormBody.isForm("Application/X-WWW-Form-Urlencoded"));
        assertTrue(!FormBody.isForm("multipart/form-data; boundary=x") && !FormBody.isForm(null));
    }
}

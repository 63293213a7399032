package dev.idempotency.agent.servlet.javax;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.servlet.http.HttpServletResponse;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A recorded Content-Type is written again as recorded: with the application's form of calls where the container
 * writes one type in two forms (as Undertow does), with one call where it writes what it is given or lists nothing.
 */
class ContentTypeCallsTest {

    @Test
    void aCharsetSetBeforeTheTypeIsSetBeforeItAgainOnUndertow() {
        Undertow undertow = new Undertow();
        // what the application did: setCharacterEncoding("UTF-8"), then setContentType("text/plain")
        undertow.setCharacterEncoding("UTF-8");
        undertow.setContentType("text/plain");
        String recorded = undertow.header;
        assertEquals("text/plain; charset=UTF-8", recorded);

        Undertow replay = new Undertow();
        ContentTypeCalls.set(replay.response(), recorded);
        assertEquals(recorded, replay.header);
    }

    @Test
    void aCharsetGivenInTheTypeIsGivenInItAgainOnUndertow() {
        Undertow undertow = new Undertow();
        undertow.setContentType("application/json; charset=UTF-8"); // or a writer's default, set after the type
        String recorded = undertow.header;
        assertEquals("application/json;charset=UTF-8", recorded);

        Undertow replay = new Undertow();
        ContentTypeCalls.set(replay.response(), recorded);
        assertEquals(recorded, replay.header);
        assertEquals(Arrays.asList("setContentType application/json;charset=UTF-8"), replay.calls, "one call where it gives the recorded form");
    }

    @Test
    void aTypeUndertowCannotWriteAsRecordedIsSetThePlainWayAtTheEnd() {
        Undertow replay = new Undertow();
        ContentTypeCalls.set(replay.response(), "text/plain;  charset=UTF-8");
        assertEquals("text/plain;charset=UTF-8", replay.header);
        assertEquals("setContentType text/plain;  charset=UTF-8", replay.calls.get(replay.calls.size() - 1));
    }

    @Test
    void aContainerThatWritesTheTypeAsGivenOrListsNoneGetsOneCall() {
        for (boolean lists : new boolean[] {true, false}) {
            List<String> calls = new ArrayList<>();
            String[] type = new String[1];
            HttpServletResponse response = (HttpServletResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getHeader")) return lists ? type[0] : null;
                        calls.add(method.getName() + " " + args[0]);
                        if (method.getName().equals("setContentType")) type[0] = lists ? (String) args[0] : "text/plain;charset=utf-8";
                        return null;
                    });
            ContentTypeCalls.set(response, "text/plain; charset=UTF-8");
            assertEquals(Arrays.asList("setContentType text/plain; charset=UTF-8"), calls);
        }
    }

    @Test
    void theCharsetIsSplitOffOnlyWhereItIsTheLastParameterUnquoted() {
        assertArrayEquals(new String[] {"text/plain", "UTF-8"}, ContentTypeCalls.charsetLast("text/plain; charset=UTF-8"));
        assertArrayEquals(new String[] {"text/plain", "UTF-8"}, ContentTypeCalls.charsetLast("text/plain;charset=UTF-8"));
        assertArrayEquals(new String[] {"text/plain; format=flowed", "ISO-8859-1"},
                ContentTypeCalls.charsetLast("text/plain; format=flowed; Charset=ISO-8859-1"));
        assertNull(ContentTypeCalls.charsetLast("text/plain"));
        assertNull(ContentTypeCalls.charsetLast("text/plain; charset=UTF-8; format=flowed"));
        assertNull(ContentTypeCalls.charsetLast("text/plain; charset=\"UTF-8\""));
        assertNull(ContentTypeCalls.charsetLast("text/plain; charset="));
        assertNull(ContentTypeCalls.charsetLast("; charset=UTF-8"));
        assertNull(ContentTypeCalls.charsetLast("multipart/form-data; boundary=x"));
    }

    /** Undertow 2.3's rules for the Content-Type header, as far as the charset goes. */
    private static final class Undertow {
        String type;
        String charset;
        String header;
        final List<String> calls = new ArrayList<>();

        void setContentType(String value) {
            calls.add("setContentType " + value);
            String[] split = ContentTypeCalls.charsetLast(value);
            if (split != null) {
                type = split[0];
                charset = split[1];
                header = type + ";charset=" + charset; // as parsed: the charset given in the type
            } else {
                type = value;
                header = charset == null ? value : value + "; charset=" + charset; // a charset set before it
            }
        }

        void setCharacterEncoding(String value) {
            calls.add("setCharacterEncoding " + value);
            charset = value;
            if (type != null) header = type + ";charset=" + charset; // as getContentType() gives it
        }

        HttpServletResponse response() {
            return (HttpServletResponse) Proxy.newProxyInstance(ContentTypeCallsTest.class.getClassLoader(),
                    new Class<?>[] {HttpServletResponse.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "setContentType": setContentType((String) args[0]); return null;
                            case "setCharacterEncoding": setCharacterEncoding((String) args[0]); return null;
                            case "getHeader": return "Content-Type".equalsIgnoreCase((String) args[0]) ? header : null;
                            default: throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }
    }
}

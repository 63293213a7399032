package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

class RequestPathTest {
    @ParameterizedTest
    @CsvSource({
            "/shop/transfers,                       /shop/transfers",
            "/shop/transfers;jsessionid=ABC,        /shop/transfers",
            "/shop;v=1/transfers;jsessionid=ABC,    /shop/transfers",
            "/shop/%74ransfers,                     /shop/transfers",
            "/shop//transfers,                      /shop/transfers",
            "/shop/./transfers,                     /shop/transfers",
            "/shop/x/../transfers,                  /shop/transfers",
            "/shop/x/%2e%2e/transfers,              /shop/transfers",
            "/../shop/transfers,                    /shop/transfers",
            "/shop/transfers/,                      /shop/transfers/",
            "/shop/a%2Fb,                           /shop/a%2Fb",
            "/shop/caf%C3%A9,                       /shop/café",
            "/shop/bad%zz,                          /shop/bad%zz",
            "/shop/latin%E9,                        /shop/latin%E9",
            "/shop/a%252Fb,                         /shop/a%252Fb",
            "/shop/%25zz,                           /shop/%25zz",
            "'',                                    /",
            "/,                                     /",
    })
    void normalisesLikeTheMappingSeesIt(String uri, String expected) {
        assertEquals(expected, RequestPath.normalise(uri));
    }

    @org.junit.jupiter.api.Test
    void aSegmentKeptAsSentNeverLooksLikeADecodedOne() {
        org.junit.jupiter.api.Assertions.assertNotEquals(RequestPath.normalise("/f/a%2Fb"), RequestPath.normalise("/f/a%252Fb"));
        org.junit.jupiter.api.Assertions.assertNotEquals(RequestPath.normalise("/f/%zz"), RequestPath.normalise("/f/%25zz"));
        org.junit.jupiter.api.Assertions.assertNotEquals(RequestPath.normalise("/f/%00"), RequestPath.normalise("/f/%2500"));
    }

    /** The shortcut for paths already normal never answers for one that is not: over every short path of these chars. */
    @org.junit.jupiter.api.Test
    void aPathTakenAsAlreadyNormalIsItsOwnNormalForm() {
        char[] alphabet = {'/', 'a', '.', ';', '%', '2', 'F'};
        int normal = 0;
        int[] digits = new int[7];
        for (int length = 1; length <= digits.length; length++) {
            java.util.Arrays.fill(digits, 0);
            while (true) {
                StringBuilder uri = new StringBuilder();
                for (int i = 0; i < length; i++) uri.append(alphabet[digits[i]]);
                String path = uri.toString();
                if (RequestPath.alreadyNormal(path)) {
                    normal++;
                    assertEquals(RequestPath.bySegments(path), path, "taken as normal: " + path);
                }
                int i = 0;
                while (i < length && ++digits[i] == alphabet.length) digits[i++] = 0;
                if (i == length) break;
            }
        }
        org.junit.jupiter.api.Assertions.assertTrue(normal > 1000, "paths taken as normal: " + normal);
        for (String notNormal : new String[] {"a", "//a", "/a//b", "/.", "/a/..", "/a/./b", "/a;x", "/%61", "/a/.."}) {
            org.junit.jupiter.api.Assertions.assertFalse(RequestPath.alreadyNormal(notNormal), notNormal);
        }
    }
}

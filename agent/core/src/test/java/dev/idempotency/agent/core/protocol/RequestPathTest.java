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
            "'',                                    /",
            "/,                                     /",
    })
    void normalisesLikeTheMappingSeesIt(String uri, String expected) {
        assertEquals(expected, RequestPath.normalise(uri));
    }
}

package dev.idempotency.agent.core.protocol;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The linear number canonicalisation gives exactly what BigDecimal gave (so stored fingerprints stay valid), and
 * refuses exactly what BigDecimal refused (which fell back to raw bytes): compared on random and edge-case numbers,
 * short enough for BigDecimal to be quick.
 */
class JsonNumberTest {
    private static final String[] EXPONENTS = {"0", "1", "6", "7", "-6", "-7", "+3", "-3", "00000000000000012", "2147483647", "-2147483647",
            "2147483648", "-2147483648", "2147483646", "-2147483646", "9999999999", "-9999999999", "10000000000", "0000000002147483648"};

    /** What fingerprints used before: BigDecimal's text of the number without trailing zeros, or null if refused. */
    private static String bigDecimal(String text) {
        try {
            BigDecimal number = new BigDecimal(text);
            return number.signum() == 0 ? "0" : number.stripTrailingZeros().toString();
        } catch (NumberFormatException | ArithmeticException e) {
            return null;
        }
    }

    private static String digits(Random r, int max, boolean firstNonZero) {
        int n = 1 + r.nextInt(max);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int d = r.nextInt(3) == 0 ? 0 : r.nextInt(10);
            s.append((char) ('0' + (i == 0 && firstNonZero ? 1 + r.nextInt(9) : d)));
        }
        return s.toString();
    }

    private static String randomNumber(Random r) {
        StringBuilder s = new StringBuilder(r.nextBoolean() ? "-" : "");
        s.append(r.nextInt(4) == 0 ? "0" : digits(r, 12, true));
        if (r.nextBoolean()) s.append('.').append(r.nextInt(4) == 0 ? "0".repeat(1 + r.nextInt(9)) : digits(r, 12, false));
        if (r.nextBoolean()) {
            s.append(r.nextBoolean() ? 'e' : 'E');
            if (r.nextInt(3) == 0) s.append(EXPONENTS[r.nextInt(EXPONENTS.length)]);
            else s.append(r.nextInt(3) == 0 ? "-" : r.nextInt(2) == 0 ? "+" : "").append(digits(r, 3, false));
        }
        return s.toString();
    }

    @Test
    void randomNumbersCanonicaliseAsBigDecimalDid() {
        Random r = new Random(0x6e756d);
        for (int i = 0; i < 300_000; i++) {
            String text = randomNumber(r);
            assertEquals(bigDecimal(text), JsonNumber.canonical(text), text);
        }
    }

    @Test
    void edgeCases() {
        String[] cases = {"0", "-0", "0.0", "-0.000e5", "1", "10", "100", "-100", "0.1", "0.10", "0.000001", "0.0000001", "0.00000123",
                "123.456e-10", "1e6", "1E+6", "12.50", "1.25e1", "125E-1", "9007199254740993", "1.0e-2147483647", "1e-2147483648",
                "10e2147483647", "100e2147483647", "1e2147483647", "0e2147483648", "0e-2147483648", "0.5e-2147483647",
                "1" + "0".repeat(40) + "e-2147483648", "12345678901234567890.0987654321000", "5e0000000000000000001"};
        for (String text : cases) assertEquals(bigDecimal(text), JsonNumber.canonical(text), text);
    }
}

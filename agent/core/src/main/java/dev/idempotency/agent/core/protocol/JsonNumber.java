package dev.idempotency.agent.core.protocol;

/**
 * A JSON number by value, in linear time: exactly the text of {@code new BigDecimal(text).stripTrailingZeros()
 * .toString()} ("0" for zero), which fingerprints stored before used and which is quadratic in the number's length.
 */
final class JsonNumber {
    private JsonNumber() {
    }

    /**
     * @param text a number as the JSON grammar allows it ({@code -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?})
     * @return its canonical text, or null where BigDecimal refuses it (an exponent or scale outside the int range)
     */
    static String canonical(String text) {
        int n = text.length();
        int i = text.charAt(0) == '-' ? 1 : 0;
        boolean negative = i == 1;
        int intStart = i;
        while (i < n && isDigit(text.charAt(i))) i++;
        int intEnd = i;
        int fracStart = i;
        if (i < n && text.charAt(i) == '.') {
            fracStart = ++i;
            while (i < n && isDigit(text.charAt(i))) i++;
        }
        int fracEnd = i;
        long exponent = 0;
        if (i < n) {
            i++; // e or E
            boolean negativeExponent = text.charAt(i) == '-';
            if (negativeExponent || text.charAt(i) == '+') i++;
            while (i < n - 1 && text.charAt(i) == '0') i++;
            if (n - i > 10) return null; // BigDecimal: too many nonzero exponent digits
            for (; i < n; i++) exponent = exponent * 10 + (text.charAt(i) - '0');
            if (negativeExponent) exponent = -exponent;
            if (exponent != (int) exponent) return null; // BigDecimal: exponent overflow
        }
        long scale = (fracEnd - fracStart) - exponent;
        if (scale != (int) scale) return null; // BigDecimal: scale out of range
        // the digits are the integer digits followed by the fraction digits; find the first and last non-zero ones
        int digits = (intEnd - intStart) + (fracEnd - fracStart);
        int first = 0;
        while (first < digits && digit(text, intStart, intEnd, fracStart, first) == '0') first++;
        if (first == digits) return "0";
        int last = digits - 1;
        while (digit(text, intStart, intEnd, fracStart, last) == '0') last--;
        scale -= digits - 1 - last;
        if (scale < Integer.MIN_VALUE) return null; // BigDecimal: stripping the zeros overflows the scale
        StringBuilder coefficient = new StringBuilder(last - first + 1);
        for (int k = first; k <= last; k++) coefficient.append(digit(text, intStart, intEnd, fracStart, k));
        return layout(negative, coefficient, (int) scale);
    }

    /** BigDecimal.toString: plain when the scale is not negative and the adjusted exponent at least -6. */
    private static String layout(boolean negative, StringBuilder coefficient, int scale) {
        int length = coefficient.length();
        long adjusted = -(long) scale + (length - 1);
        StringBuilder out = new StringBuilder(length + 16);
        if (negative) out.append('-');
        if (scale == 0) return out.append(coefficient).toString();
        if (scale > 0 && adjusted >= -6) {
            int pad = scale - length;
            if (pad >= 0) {
                out.append("0.");
                for (; pad > 0; pad--) out.append('0');
                return out.append(coefficient).toString();
            }
            return out.append(coefficient, 0, -pad).append('.').append(coefficient, -pad, length).toString();
        }
        out.append(coefficient.charAt(0));
        if (length > 1) out.append('.').append(coefficient, 1, length);
        if (adjusted != 0) out.append('E').append(adjusted > 0 ? "+" : "").append(adjusted);
        return out.toString();
    }

    private static char digit(String text, int intStart, int intEnd, int fracStart, int index) {
        int intDigits = intEnd - intStart;
        return text.charAt(index < intDigits ? intStart + index : fracStart + index - intDigits);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}

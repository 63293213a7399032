package dev.idempotency.agent.core.protocol;

/**
 * Strict UTF-8 (Unicode Table 3-7), checked in one pass without allocating: Jackson's own decoder accepts overlong
 * forms, encoded surrogates and code points above U+10FFFF, which would let two different byte sequences read as the
 * same document.
 */
final class Utf8 {
    private Utf8() {
    }

    static boolean isValid(byte[] bytes) {
        int i = 0;
        int n = bytes.length;
        while (i < n) {
            int lead = bytes[i];
            if (lead >= 0) {
                i++;
                continue;
            }
            lead &= 0xff;
            if (lead < 0xc2 || lead > 0xf4) return false; // continuation byte, overlong 2-byte lead, or beyond U+10FFFF
            int length = lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
            if (i + length > n) return false;
            // the second byte's range is narrower after E0 (overlong), ED (surrogates), F0 (overlong), F4 (> U+10FFFF)
            int second = bytes[i + 1] & 0xff;
            int low = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
            int high = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
            if (second < low || second > high) return false;
            for (int k = 2; k < length; k++) if ((bytes[i + k] & 0xc0) != 0x80) return false;
            i += length;
        }
        return true;
    }
}

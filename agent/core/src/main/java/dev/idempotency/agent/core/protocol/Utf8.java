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
        for (int i = 0; i < bytes.length; ) {
            int length = sequenceLength(bytes, i);
            if (length == 0) return false;
            i += length;
        }
        return true;
    }

    /** The length of the well-formed sequence at {@code i} (1 to 4 bytes), or 0 when there is none. */
    static int sequenceLength(byte[] bytes, int i) {
        int lead = bytes[i];
        if (lead >= 0) return 1;
        lead &= 0xff;
        if (lead < 0xc2 || lead > 0xf4) return 0; // continuation byte, overlong 2-byte lead, or beyond U+10FFFF
        int length = lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
        if (i + length > bytes.length) return 0;
        // the second byte's range is narrower after E0 (overlong), ED (surrogates), F0 (overlong), F4 (> U+10FFFF)
        int second = bytes[i + 1] & 0xff;
        int low = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
        int high = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
        if (second < low || second > high) return 0;
        for (int k = 2; k < length; k++) if ((bytes[i + k] & 0xc0) != 0x80) return 0;
        return length;
    }
}

package dev.idempotency.agent.core.protocol;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * What a fingerprint of {@code POST /p} without a query must be, computed here from the documented layout (each field
 * length-prefixed: method, path, query pairs, kind, payload) rather than by the code under test.
 */
final class ExpectedFingerprint {
    private ExpectedFingerprint() {
    }

    /** @param kind "json", "raw;TYPE" or "raw;TYPE;charset=NAME" */
    static String of(String kind, byte[] payload) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            field(sha, "POST".getBytes(StandardCharsets.US_ASCII));
            field(sha, "/p".getBytes(StandardCharsets.US_ASCII));
            field(sha, new byte[0]);
            field(sha, kind.getBytes(StandardCharsets.US_ASCII));
            field(sha, payload);
            StringBuilder hex = new StringBuilder();
            for (byte b : sha.digest()) hex.append(String.format("%02x", b & 0xff));
            return hex.toString();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    static String json(String canonical) {
        return of("json", canonical.getBytes(StandardCharsets.UTF_8));
    }

    private static void field(MessageDigest sha, byte[] bytes) {
        int n = bytes.length;
        sha.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
        sha.update(bytes);
    }
}

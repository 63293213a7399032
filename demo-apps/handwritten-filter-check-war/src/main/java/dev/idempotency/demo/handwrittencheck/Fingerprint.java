package dev.idempotency.demo.handwrittencheck;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 of what makes two requests "the same request": method, URI, query string and body. */
final class Fingerprint {

    private Fingerprint() {
    }

    static byte[] of(String method, String uri, String query, byte[] body) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JRE has SHA-256", e);
        }
        // A zero byte after each part, and a marker for "no query", so that shifting characters from one part to
        // the next, or "?" against no query at all, cannot give the same digest.
        update(sha256, method);
        update(sha256, uri);
        if (query == null) {
            sha256.update((byte) 1);
        } else {
            update(sha256, query);
        }
        sha256.update(body);
        return sha256.digest();
    }

    private static void update(MessageDigest sha256, String part) {
        sha256.update(part.getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
    }
}

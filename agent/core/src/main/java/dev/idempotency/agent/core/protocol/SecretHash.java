package dev.idempotency.agent.core.protocol;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 under the installation's secret of a sequence of strings, each prefixed with its length so that moving a
 * boundary between two of them makes another input. Nothing hashed this way can be turned back into its fields.
 */
public final class SecretHash {
    private SecretHash() {
    }

    /** The MAC of {@code prefix} (as is; may be empty) followed by every field, length-prefixed, in UTF-8. */
    public static byte[] of(byte[] secret, byte[] prefix, Iterable<String> fields) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret, "HmacSHA256"));
            mac.update(prefix);
            for (String field : fields) {
                byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
                mac.update(new byte[] {(byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16), (byte) (bytes.length >>> 8), (byte) bytes.length});
                mac.update(bytes);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
        }
    }
}

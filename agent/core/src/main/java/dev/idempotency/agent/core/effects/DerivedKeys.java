package dev.idempotency.agent.core.effects;

import dev.idempotency.agent.core.config.HttpMethods;
import dev.idempotency.agent.core.config.OutboundHosts;
import dev.idempotency.agent.core.protocol.SecretHash;

import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The idempotency keys a keyed request's unsafe calls carry to the hosts that honour one ({@code
 * idempotency.outbound.hosts}): the same on every attempt of the same incoming request, on any node, and different for
 * each distinct call within it. A key is an HMAC, under the installation's secret, of the scope, the incoming key, the
 * call's method, host, port and path, and its ordinal among the request's calls to that same method, host, port and
 * path (so calls elsewhere in between do not shift it); it reveals neither the incoming key nor the scope.
 *
 * <p>Bound to the thread that runs the keyed request while it owns its key; calls made on other threads get nothing.
 */
public final class DerivedKeys {
    private static final ThreadLocal<DerivedKeys> CURRENT = new ThreadLocal<>();
    private static final byte[] PURPOSE = "idempotency-agent outbound key v1".getBytes(StandardCharsets.US_ASCII);
    private static volatile Settings settings;

    /** A call's key (null: it keeps its own) and the header it goes in. */
    static final class Derived {
        final String header;
        final String key;

        Derived(String header, String key) {
            this.header = header;
            this.key = key;
        }
    }

    private static final class Settings {
        final OutboundHosts hosts;
        final OutboundHosts replaced;
        final HttpMethods methods;
        final Supplier<byte[]> secret;

        Settings(OutboundHosts hosts, OutboundHosts replaced, HttpMethods methods, Supplier<byte[]> secret) {
            this.hosts = hosts;
            this.replaced = replaced == null ? OutboundHosts.NONE : replaced;
            this.methods = methods;
            this.secret = secret;
        }
    }

    private final Settings with;
    private final String scope;
    private final String key;
    private final Map<String, Integer> ordinals = new HashMap<>();
    /** Keys a client made up (by endpoint and value), with the derived key that replaced each. */
    private final Map<String, String> replacedKeys = new HashMap<>();
    /** Calls already decided (a connection's hooks fire more than once; a rebuilt request is the same call). */
    private final Map<Object, Derived> decided = new IdentityHashMap<>();
    private volatile boolean closed;

    private DerivedKeys(Settings with, String scope, String key) {
        this.with = with;
        this.scope = scope;
        this.key = key;
    }

    /**
     * Which hosts get keys, on which methods, and the installation's secret; hosts empty: none, and nothing is bound.
     * {@code replaced}: the hosts whose calls' own keys are replaced (their client makes one up per call).
     */
    public static void configure(OutboundHosts hosts, OutboundHosts replaced, HttpMethods methods, Supplier<byte[]> secret) {
        settings = hosts == null || hosts.isEmpty() ? null : new Settings(hosts, replaced, methods, secret);
    }

    /** Whether any host gets derived keys. */
    public static boolean configured() {
        return settings != null;
    }

    /** Starts deriving keys for the calls of the keyed request ({@code scope}, {@code key}) this thread runs; null when unconfigured. */
    public static DerivedKeys bind(String scope, String key) {
        Settings with = settings;
        if (with == null) return null;
        DerivedKeys keys = new DerivedKeys(with, scope, key);
        CURRENT.set(keys);
        return keys;
    }

    static DerivedKeys current() {
        DerivedKeys keys = CURRENT.get();
        if (keys == null) return null;
        if (keys.closed) {
            CURRENT.remove();
            return null;
        }
        return keys;
    }

    /** The request's service call ended on this thread: this thread may serve other requests next. */
    public static void unbindCurrentThread() {
        CURRENT.remove();
    }

    /** The request ended: no more keys for it, on any thread. */
    public void close() {
        closed = true;
        if (CURRENT.get() == this) CURRENT.remove();
        // a thread that is never unbound (the request ended elsewhere) must not keep the application's clients reachable
        synchronized (this) {
            decided.clear();
            replacedKeys.clear();
        }
    }

    /**
     * The key for a call about to leave ({@code method} already upper case, {@code url} absolute), given the value the
     * call already carries in a header ({@code existing}); the same answer for a call decided before; null when the
     * call's host or method gets none. A call that carries its own key keeps it ({@link Derived#key} null), unless its
     * host is one whose client makes up a key per call ({@code idempotency.outbound.replace-keys}): then it gets a derived
     * key in its place, and a call carrying the same made-up key again (the client's own retry) gets the same one.
     */
    synchronized Derived forCall(Object call, String method, String url, java.util.function.Function<String, String> existing) {
        Derived known = decided.get(call);
        if (known != null || closed) return known;
        URL parsed = parse(url);
        String host = parsed == null ? null : parsed.getHost();
        String header = host == null || host.isEmpty() || !with.methods.contains(method) ? null : with.hosts.headerFor(host);
        if (header == null) return null; // not stored: deciding it again costs a lookup and changes nothing
        String h = host.toLowerCase(Locale.ROOT);
        int port = parsed.getPort() >= 0 ? parsed.getPort() : parsed.getDefaultPort();
        String path = parsed.getPath() == null || parsed.getPath().isEmpty() ? "/" : parsed.getPath();
        String endpoint = method + ' ' + h + ':' + port + path;
        String own = existing.apply(header);
        Derived derived;
        if (own != null && with.replaced.headerFor(h) == null) {
            derived = new Derived(header, null);
        } else {
            String retried = own == null ? null : replacedKeys.get(endpoint + '\n' + own);
            if (retried != null) {
                derived = new Derived(header, retried);
            } else {
                Integer previous = ordinals.get(endpoint);
                int ordinal = previous == null ? 0 : previous + 1;
                ordinals.put(endpoint, ordinal);
                derived = new Derived(header, derive(with.secret.get(), scope, key, method, h, port, path, ordinal));
                if (own != null) replacedKeys.put(endpoint + '\n' + own, derived.key);
            }
        }
        decided.put(call, derived);
        return derived;
    }

    /** The same call under another object (a request rebuilt with the key): decided as the first. */
    synchronized void sameCall(Object rebuilt, Derived derived) {
        decided.put(rebuilt, derived);
    }

    /** The derived key, formatted as a UUID (version 8, RFC 9562) that providers' key formats all accept. */
    static String derive(byte[] secret, String scope, String key, String method, String host, int port, String path, int ordinal) {
        byte[] b = SecretHash.of(secret, PURPOSE, java.util.Arrays.asList(scope, key, method, host, Integer.toString(port), path,
                Integer.toString(ordinal)));
        b[6] = (byte) ((b[6] & 0x0f) | 0x80);
        b[8] = (byte) ((b[8] & 0x3f) | 0x80);
        StringBuilder uuid = new StringBuilder(36);
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10) uuid.append('-');
            uuid.append(Character.forDigit((b[i] >> 4) & 0xf, 16)).append(Character.forDigit(b[i] & 0xf, 16));
        }
        return uuid.toString();
    }

    /** The call's URL, parsed as the clients parse it (a host with an underscore has no host for java.net.URI). */
    private static URL parse(String url) {
        try {
            return url == null ? null : new URL(url);
        } catch (java.net.MalformedURLException e) {
            return null;
        }
    }
}

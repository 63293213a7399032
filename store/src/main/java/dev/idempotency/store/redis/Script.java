package dev.idempotency.store.redis;

import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisNoScriptException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.List;

/**
 * One of the store's Lua scripts: every compare-and-set of the store is one, run atomically by the server with its own
 * clock. Sent by its SHA-1 ({@code EVALSHA}); a server that does not know it (restarted, or {@code SCRIPT FLUSH}) gets
 * its source once ({@code EVAL}, which also caches it): {@code NOSCRIPT} means nothing ran, so that is safe for writes.
 */
final class Script {
    static final Script RESERVE = load("reserve");
    static final Script COMPLETE = load("complete");
    static final Script REPLACE = load("replace");
    static final Script RELEASE = load("release");
    static final Script RENEW = load("renew");
    static final Script RESOLVE = load("resolve");
    static final Script DELETE = load("delete");
    static final Script SWEEP = load("sweep");
    static final Script PURGE = load("purge");
    static final Script LIST = load("list");

    private final String name;
    private final byte[] source;
    private final byte[] sha;

    private Script(String name, byte[] source) {
        this.name = name;
        this.source = source;
        this.sha = sha1Hex(source);
    }

    Object run(Jedis redis, byte[][] keys, byte[]... args) {
        List<byte[]> k = Arrays.asList(keys);
        List<byte[]> a = Arrays.asList(args);
        try {
            return redis.evalsha(sha, k, a);
        } catch (JedisNoScriptException e) {
            return redis.eval(source, k, a);
        }
    }

    /** Queued in a pipeline by its SHA-1 only: on {@code NOSCRIPT}, {@link #cache} it and send the pipeline again. */
    Response<Object> queue(Pipeline pipeline, byte[][] keys, byte[]... args) {
        return pipeline.evalsha(sha, Arrays.asList(keys), Arrays.asList(args));
    }

    /** Makes the server know this script. */
    void cache(Jedis redis) {
        redis.scriptLoad(source);
    }

    @Override
    public String toString() { return name + ".lua"; }

    private static Script load(String name) {
        return new Script(name, concat(resource("prelude"), resource(name)));
    }

    private static byte[] resource(String name) {
        try (InputStream in = Script.class.getResourceAsStream(name + ".lua")) {
            if (in == null) throw new IllegalStateException("script " + name + ".lua missing from the store's jar");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read script " + name + ".lua from the store's jar", e);
        }
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + 1 + b.length);
        both[a.length] = '\n';
        System.arraycopy(b, 0, both, a.length + 1, b.length);
        return both;
    }

    private static byte[] sha1Hex(byte[] source) {
        try {
            StringBuilder hex = new StringBuilder();
            for (byte b : MessageDigest.getInstance("SHA-1").digest(source)) hex.append(String.format("%02x",
                    b & 0xff));
            return hex.toString().getBytes(StandardCharsets.US_ASCII);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-1", e);
        }
    }
}

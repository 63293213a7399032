package dev.idempotency.store.redis;

import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;

import java.io.UnsupportedEncodingException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;

/**
 * A standalone Redis server as a store URL names it: {@code redis://[user:password@]host[:port][/db]}, or
 * {@code rediss://} for TLS (the server's certificate and host name checked by the JVM's trust store). A user or
 * password in the settings wins over one in the URL. {@link #toString()} never shows the password.
 */
final class RedisEndpoint {
    static final int DEFAULT_PORT = 6379;

    final String host;
    final int port;
    final int database;
    final boolean tls;
    final String user;
    final String password;

    private RedisEndpoint(String host, int port, int database, boolean tls, String user, String password) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.tls = tls;
        this.user = user;
        this.password = password;
    }

    static RedisEndpoint of(StoreSettings settings) {
        String url = settings.url();
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw refused(url, "not a URL (" + e.getReason() + ")");
        }
        boolean tls = "rediss".equals(uri.getScheme());
        if (!tls && !"redis".equals(uri.getScheme())) throw refused(url, "neither redis:// nor rediss://");
        String host = uri.getHost();
        if (host == null || host.isEmpty()) throw refused(url, "no host");
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw refused(url, "query parameters are not read; give the user and password as "
                    + "redis://user:password@host or in the store's user and password settings");
        }
        int database = 0;
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            try {
                database = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw refused(url, "the path must be a database number, as in redis://host:6379/0");
            }
            if (database < 0) throw refused(url, "the database number must not be negative");
        }
        String user = null;
        String password = null;
        String info = uri.getRawUserInfo();
        if (info != null) {
            int colon = info.indexOf(':');
            user = decode(colon < 0 ? info : info.substring(0, colon));
            password = colon < 0 ? null : decode(info.substring(colon + 1));
            if (user.isEmpty()) user = null;
        }
        if (settings.user() != null) user = settings.user();
        if (settings.password() != null) password = settings.password();
        return new RedisEndpoint(host, uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(), database, tls, user, password);
    }

    private static String decode(String s) {
        try {
            return URLDecoder.decode(s.replace("+", "%2B"), "UTF-8");
        } catch (UnsupportedEncodingException e) {
            throw new IllegalStateException("every JVM has UTF-8", e);
        }
    }

    private static StoreConfigurationException refused(String url, String why) {
        return new StoreConfigurationException("store setting 'url' is '" + StoreSettings.redacted(url) + "': " + why
                + "; expected redis://[user:password@]host[:port][/db] or rediss://...");
    }

    @Override
    public String toString() {
        String shownHost = host.contains(":") ? "[" + host + "]" : host;
        return (tls ? "rediss://" : "redis://") + (user == null ? "" : user + "@") + shownHost
                + ":" + port + "/" + database;
    }
}

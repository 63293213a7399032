package dev.idempotency.store.redis;

import dev.idempotency.store.StoreConfigurationException;
import dev.idempotency.store.StoreSettings;

import java.io.UnsupportedEncodingException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The Redis a store URL names: a standalone server, {@code redis://[user:password@]host[:port][/db]}, or the master
 * that Redis Sentinel names, {@code redis-sentinel://[user:password@]host[:port][,host[:port]...]/master-name[/db]}
 * (the hosts are sentinels, port 26379 unless given); {@code rediss://} and {@code rediss-sentinel://} for TLS (the
 * server's certificate and host name checked by the JVM's trust store). User and password are the master's; a user or
 * password in the settings wins over one in the URL. Sentinels are asked without them. {@link #toString()} never shows
 * the password.
 */
final class RedisEndpoint {
    static final int DEFAULT_PORT = 6379;
    static final int DEFAULT_SENTINEL_PORT = 26379;

    final String host;
    final int port;
    final int database;
    final boolean tls;
    final String user;
    final String password;
    /** The sentinels to ask for the master, host and port each; empty for a standalone server. */
    final List<String[]> sentinels;
    /** The master's name at the sentinels, or null for a standalone server. */
    final String masterName;

    private RedisEndpoint(String host, int port, int database, boolean tls, String user, String password,
            List<String[]> sentinels, String masterName) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.tls = tls;
        this.user = user;
        this.password = password;
        this.sentinels = sentinels;
        this.masterName = masterName;
    }

    boolean viaSentinel() {
        return masterName != null;
    }

    static RedisEndpoint of(StoreSettings settings) {
        String url = settings.url();
        if (url.startsWith("redis-sentinel://") || url.startsWith("rediss-sentinel://")) return sentinel(settings);
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw refused(url, "not a URL (" + e.getReason() + ")");
        }
        boolean tls = "rediss".equals(uri.getScheme());
        if (!tls && !"redis".equals(uri.getScheme())) {
            throw refused(url, "neither redis://, rediss://, redis-sentinel:// nor rediss-sentinel://");
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) throw refused(url, "no host");
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw refused(url, "query parameters are not read; give the user and password as "
                    + "redis://user:password@host or in the store's user and password settings");
        }
        int database = 0;
        String path = uri.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) database = database(url, path.substring(1));
        String[] credentials = credentials(uri.getRawUserInfo(), settings);
        return new RedisEndpoint(host, uri.getPort() < 0 ? DEFAULT_PORT : uri.getPort(), database, tls, credentials[0],
                credentials[1], Collections.<String[]>emptyList(), null);
    }

    /** User and password: the settings', else the URL's user information (percent-decoded). */
    private static String[] credentials(String rawUserInfo, StoreSettings settings) {
        String user = null;
        String password = null;
        if (rawUserInfo != null) {
            int colon = rawUserInfo.indexOf(':');
            user = decode(colon < 0 ? rawUserInfo : rawUserInfo.substring(0, colon));
            password = colon < 0 ? null : decode(rawUserInfo.substring(colon + 1));
            if (user.isEmpty()) user = null;
        }
        if (settings.user() != null) user = settings.user();
        if (settings.password() != null) password = settings.password();
        return new String[] {user, password};
    }

    /** {@code redis-sentinel://[user:password@]host[:port][,host[:port]...]/master-name[/db]}, parsed by hand. */
    private static RedisEndpoint sentinel(StoreSettings settings) {
        String url = settings.url();
        boolean tls = url.startsWith("rediss-");
        String rest = url.substring(url.indexOf("://") + 3);
        if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
            throw refused(url, "query parameters are not read; give the user and password as "
                    + "redis-sentinel://user:password@host:26379/master or in the store's user and password settings");
        }
        // The user information ends at the last '@' (a password may hold '/'), the sentinels at the next '/'.
        int at = rest.lastIndexOf('@');
        int slash = rest.indexOf('/', at + 1);
        if (slash < 0) throw refused(url, "no master name: the path names the master the sentinels watch");
        String authority = rest.substring(0, slash);
        String[] path = rest.substring(slash + 1).split("/", -1);
        String[] credentials;
        try {
            credentials = credentials(at < 0 ? null : authority.substring(0, at), settings);
        } catch (IllegalArgumentException badEscape) {
            throw refused(url, "the user or password holds a '%' that starts no escape (write it as %25)");
        }
        List<String[]> sentinels = new ArrayList<>();
        for (String hostPort : authority.substring(at + 1).split(",", -1)) sentinels.add(hostAndPort(url, hostPort));
        String master = decode(path[0]);
        if (master.isEmpty()) throw refused(url, "no master name: the path names the master the sentinels watch");
        if (path.length > 2) throw refused(url, "the path is the master's name and at most a database number");
        int database = path.length == 2 && !path[1].isEmpty() ? database(url, path[1]) : 0;
        return new RedisEndpoint(null, -1, database, tls, credentials[0], credentials[1],
                Collections.unmodifiableList(sentinels), master);
    }

    private static String[] hostAndPort(String url, String hostPort) {
        String host = hostPort;
        String port = null;
        if (hostPort.startsWith("[")) {
            int close = hostPort.indexOf(']');
            if (close < 0) throw refused(url, "'" + hostPort + "' is not a host");
            host = hostPort.substring(1, close);
            if (close + 1 < hostPort.length()) {
                if (hostPort.charAt(close + 1) != ':') throw refused(url, "'" + hostPort + "' is not host:port");
                port = hostPort.substring(close + 2);
            }
        } else if (hostPort.indexOf(':') >= 0) {
            host = hostPort.substring(0, hostPort.indexOf(':'));
            port = hostPort.substring(hostPort.indexOf(':') + 1);
        }
        if (host.isEmpty()) throw refused(url, "a sentinel without a host");
        int number = DEFAULT_SENTINEL_PORT;
        if (port != null) {
            try {
                number = Integer.parseInt(port);
            } catch (NumberFormatException e) {
                number = -1;
            }
            if (number < 1 || number > 65535) throw refused(url, "'" + port + "' is not a port");
        }
        return new String[] {host, Integer.toString(number)};
    }

    private static int database(String url, String text) {
        int database;
        try {
            database = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw refused(url, "the database must be a number, as in redis://host:6379/0");
        }
        if (database < 0) throw refused(url, "the database number must not be negative");
        return database;
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
                + "; expected redis://[user:password@]host[:port][/db], rediss://..., "
                + "or redis-sentinel://[user:password@]host[:port][,host[:port]...]/master-name[/db]");
    }

    @Override
    public String toString() {
        String shownUser = user == null ? "" : user + "@";
        if (!viaSentinel()) {
            return (tls ? "rediss://" : "redis://") + shownUser + shown(host) + ":" + port + "/" + database;
        }
        StringBuilder s = new StringBuilder(tls ? "rediss-sentinel://" : "redis-sentinel://").append(shownUser);
        for (int i = 0; i < sentinels.size(); i++) {
            if (i > 0) s.append(',');
            s.append(shown(sentinels.get(i)[0])).append(':').append(sentinels.get(i)[1]);
        }
        return s.append('/').append(masterName).append('/').append(database).toString();
    }

    private static String shown(String host) {
        return host.contains(":") ? "[" + host + "]" : host;
    }
}

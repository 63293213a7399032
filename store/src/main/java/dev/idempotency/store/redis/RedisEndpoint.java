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
    /** The sentinels to ask for the master, host and port each; empty for a standalone server or a Cluster. */
    final List<String[]> sentinels;
    /** The master's name at the sentinels, or null for a standalone server or a Cluster. */
    final String masterName;
    /** A Cluster's seed nodes, host and port each; empty for a standalone server or Sentinel. */
    final List<String[]> clusterSeeds;

    private RedisEndpoint(String host, int port, int database, boolean tls, String user, String password,
            List<String[]> sentinels, String masterName, List<String[]> clusterSeeds) {
        this.host = host;
        this.port = port;
        this.database = database;
        this.tls = tls;
        this.user = user;
        this.password = password;
        this.sentinels = sentinels;
        this.masterName = masterName;
        this.clusterSeeds = clusterSeeds;
    }

    boolean viaSentinel() {
        return masterName != null;
    }

    boolean cluster() {
        return !clusterSeeds.isEmpty();
    }

    static RedisEndpoint of(StoreSettings settings) {
        String url = settings.url();
        if (url.startsWith("redis-sentinel://") || url.startsWith("rediss-sentinel://")) return sentinel(settings);
        if (url.startsWith("redis-cluster://") || url.startsWith("rediss-cluster://")) return cluster(settings);
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw refused(url, "not a URL (" + e.getReason() + ")");
        }
        boolean tls = "rediss".equals(uri.getScheme());
        if (!tls && !"redis".equals(uri.getScheme())) {
            throw refused(url, "neither redis://, rediss://, redis-sentinel://, rediss-sentinel://, redis-cluster:// "
                    + "nor rediss-cluster://");
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
                credentials[1], Collections.<String[]>emptyList(), null, Collections.<String[]>emptyList());
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
        String rest = afterScheme(url, "redis-sentinel://user:password@host:26379/master");
        // The user information ends at the last '@' (a password may hold '/'), the sentinels at the next '/'.
        int at = rest.lastIndexOf('@');
        int slash = rest.indexOf('/', at + 1);
        if (slash < 0) throw refused(url, "no master name: the path names the master the sentinels watch");
        String authority = rest.substring(0, slash);
        String[] path = rest.substring(slash + 1).split("/", -1);
        String[] credentials = credentials(url, at < 0 ? null : authority.substring(0, at), settings);
        List<String[]> sentinels = hosts(url, authority.substring(at + 1), DEFAULT_SENTINEL_PORT);
        String master = decode(path[0]);
        if (master.isEmpty()) throw refused(url, "no master name: the path names the master the sentinels watch");
        if (path.length > 2) throw refused(url, "the path is the master's name and at most a database number");
        int database = path.length == 2 && !path[1].isEmpty() ? database(url, path[1]) : 0;
        return new RedisEndpoint(null, -1, database, url.startsWith("rediss-"), credentials[0], credentials[1],
                sentinels, master, Collections.<String[]>emptyList());
    }

    /** {@code redis-cluster://[user:password@]host[:port][,host[:port]...]}, parsed by hand. */
    private static RedisEndpoint cluster(StoreSettings settings) {
        String url = settings.url();
        String rest = afterScheme(url, "redis-cluster://user:password@host:6379,host:6379");
        int at = rest.lastIndexOf('@');
        int slash = rest.indexOf('/', at + 1);
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        if (slash >= 0 && slash + 1 < rest.length()) {
            throw refused(url, "a Redis Cluster has only database 0, and no path is read");
        }
        String[] credentials = credentials(url, at < 0 ? null : authority.substring(0, at), settings);
        List<String[]> seeds = hosts(url, authority.substring(at + 1), DEFAULT_PORT);
        return new RedisEndpoint(null, -1, 0, url.startsWith("rediss-"), credentials[0], credentials[1],
                Collections.<String[]>emptyList(), null, seeds);
    }

    private static String afterScheme(String url, String example) {
        String rest = url.substring(url.indexOf("://") + 3);
        if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
            throw refused(url, "query parameters are not read; give the user and password as " + example
                    + " or in the store's user and password settings");
        }
        return rest;
    }

    private static String[] credentials(String url, String rawUserInfo, StoreSettings settings) {
        try {
            return credentials(rawUserInfo, settings);
        } catch (IllegalArgumentException badEscape) {
            throw refused(url, "the user or password holds a '%' that starts no escape (write it as %25)");
        }
    }

    private static List<String[]> hosts(String url, String list, int defaultPort) {
        List<String[]> hosts = new ArrayList<>();
        for (String hostPort : list.split(",", -1)) hosts.add(hostAndPort(url, hostPort, defaultPort));
        return Collections.unmodifiableList(hosts);
    }

    private static String[] hostAndPort(String url, String hostPort, int defaultPort) {
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
        if (host.isEmpty()) throw refused(url, "a node without a host");
        int number = defaultPort;
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
                + "redis-sentinel://[user:password@]host[:port][,host[:port]...]/master-name[/db], "
                + "or redis-cluster://[user:password@]host[:port][,host[:port]...]");
    }

    @Override
    public String toString() {
        String shownUser = user == null ? "" : user + "@";
        if (cluster()) return hostList(tls ? "rediss-cluster://" : "redis-cluster://", shownUser, clusterSeeds);
        if (!viaSentinel()) {
            return (tls ? "rediss://" : "redis://") + shownUser + shown(host) + ":" + port + "/" + database;
        }
        return hostList(tls ? "rediss-sentinel://" : "redis-sentinel://", shownUser, sentinels) + "/" + masterName
                + "/" + database;
    }

    private static String hostList(String scheme, String shownUser, List<String[]> hosts) {
        StringBuilder s = new StringBuilder(scheme).append(shownUser);
        for (int i = 0; i < hosts.size(); i++) {
            if (i > 0) s.append(',');
            s.append(shown(hosts.get(i)[0])).append(':').append(hosts.get(i)[1]);
        }
        return s.toString();
    }

    private static String shown(String host) {
        return host.contains(":") ? "[" + host + "]" : host;
    }
}

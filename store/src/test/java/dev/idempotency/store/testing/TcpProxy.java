package dev.idempotency.store.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A loopback TCP forwarder a test can cut (close every connection and refuse new ones) and restore on the same port:
 * enough to simulate a database outage without outside tools. It can also lose the answer to one request: every byte
 * the database sends back on the connection that carried a marker is dropped, while the request itself reaches the
 * database and takes effect.
 */
public final class TcpProxy implements AutoCloseable {
    private final String targetHost;
    private final int targetPort;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile ServerSocket server;
    private volatile String loseRepliesAfter;
    private final List<Socket> held = new ArrayList<>();
    private boolean holding;
    /** Forwarded connections not yet closed. */
    private int links;
    /** Reads from clients forwarded so far: a driver's request, sent in one write, is usually one. */
    private final java.util.concurrent.atomic.AtomicLong clientReads = new java.util.concurrent.atomic.AtomicLong();

    public TcpProxy(String targetHostAndPort) throws IOException {
        String[] parts = targetHostAndPort.split(":");
        this.targetHost = parts[0];
        this.targetPort = Integer.parseInt(parts[1]);
        try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            this.port = probe.getLocalPort();
        }
        restore();
    }

    public int port() { return port; }

    /** Reads from clients forwarded so far (a driver's round trips, where each request fits one read). */
    public long clientReads() { return clientReads.get(); }

    /** Starts accepting again on the same port. */
    public synchronized void restore() throws IOException {
        if (server != null) return;
        ServerSocket s = bindAgain();
        server = s;
        Thread acceptor = new Thread(() -> acceptLoop(s), "tcp-proxy-accept-" + port);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    // Right after cut() the port may still be held by the proxy's own closing sockets for a moment.
    private ServerSocket bindAgain() throws IOException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            ServerSocket s = new ServerSocket();
            s.setReuseAddress(true);
            try {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                return s;
            } catch (java.net.BindException e) {
                s.close();
                if (System.nanoTime() > deadline) throw e;
                try {
                    Thread.sleep(50);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    /**
     * On the next connection whose client sends {@code marker} (in one chunk, as the driver wrote it), every later byte
     * from the database to the client is dropped: the statement runs, its answer never arrives. Once only.
     */
    public void loseRepliesAfter(String marker) {
        loseRepliesAfter = marker;
    }

    /** The marker {@link #loseRepliesAfter} still waits for; null once a client sent it. */
    public String pendingMarker() {
        return loseRepliesAfter;
    }

    /** New connections are accepted but not forwarded (a database slow to answer a connect) until {@link #releaseHeld}. */
    public synchronized void holdNewConnections() {
        holding = true;
    }

    /** Connections accepted and held so far. */
    public synchronized int heldConnections() {
        return held.size();
    }

    /** Forwards the held connections and every new one. */
    public synchronized void releaseHeld() {
        holding = false;
        for (Socket client : held) {
            try {
                forward(client, server);
            } catch (IOException e) {
                sockets.remove(client); // the target refused: this client sees its connection fail
            }
        }
        held.clear();
    }

    /** Client connections open through the proxy (held ones included). */
    public synchronized int openConnections() {
        return held.size() + links;
    }

    /** Refuses new connections and drops every open one, as a database outage would. */
    public synchronized void cut() throws IOException {
        if (server != null) server.close();
        server = null;
        held.clear();
        holding = false;
        for (Socket socket : sockets) closeQuietly(socket);
        sockets.clear();
    }

    private void acceptLoop(ServerSocket s) {
        while (!s.isClosed()) {
            try {
                Socket client = s.accept();
                synchronized (this) {
                    if (holding) {
                        sockets.add(client);
                        held.add(client);
                        continue;
                    }
                }
                forward(client, s);
            } catch (IOException e) {
                // closed by cut(), or the target refused: the client sees its connection fail
            }
        }
    }

    /**
     * Links {@code client} to the target, unless the proxy was cut since {@code acceptedBy} accepted it: a connection
     * accepted just before a cut and linked just after it would outlive the cut (seen: a sweep went through).
     */
    private void forward(Socket client, ServerSocket acceptedBy) throws IOException {
        Socket upstream;
        try {
            upstream = new Socket(targetHost, targetPort);
        } catch (IOException e) {
            closeQuietly(client);
            throw e;
        }
        Link link = new Link();
        synchronized (this) {
            if (acceptedBy == null || acceptedBy.isClosed()) {
                closeQuietly(client);
                closeQuietly(upstream);
                return;
            }
            sockets.add(client);
            sockets.add(upstream);
            links++;
        }
        pump(client, upstream, link, true);
        pump(upstream, client, link, false);
    }

    /** One client connection and its upstream: whether the database's answers still reach the client. */
    private static final class Link {
        volatile boolean repliesLost;
        /** Set by the first of its two pumps to end: the link is closed then. */
        final AtomicBoolean ended = new AtomicBoolean();
    }


    private void pump(Socket from, Socket to, Link link, boolean fromClient) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16384];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                    if (fromClient) {
                        clientReads.incrementAndGet();
                        String marker = loseRepliesAfter;
                        if (marker != null && new String(buffer, 0, n, StandardCharsets.ISO_8859_1).contains(marker)) {
                            loseRepliesAfter = null;
                            link.repliesLost = true; // set before the request goes on: its answer cannot slip through
                        }
                    } else if (link.repliesLost) {
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side went away
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
                if (link.ended.compareAndSet(false, true)) {
                    synchronized (TcpProxy.this) {
                        links--;
                    }
                }
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        cut();
    }
}

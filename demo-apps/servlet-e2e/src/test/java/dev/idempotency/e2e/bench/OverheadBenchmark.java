package dev.idempotency.e2e.bench;

import dev.idempotency.e2e.servers.ServerHandle;


import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the agent costs a real Tomcat 9: the same cheap request (POST /shop/ping, no key) with and without
 * {@code -javaagent}, then keyed requests (a new key each: reserve, record, send) on the embedded H2 store, and the
 * start-up time. Keep-alive connections from this JVM; on a 2-core machine client and server share the CPU, so compare
 * the rows with each other rather than with other machines. Run through demo-apps/bench/overhead.sh.
 *
 * <p>Arguments: seconds per run (default 15), connections (default 8).
 */
public final class OverheadBenchmark {

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        int connections = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        System.out.printf("overhead benchmark: Tomcat 9, %d connections, %d s per run (after %d s warm-up)%n", connections, seconds, seconds / 3);
        System.out.println("| server | request | requests/s | p50 ms | p99 ms | start-up ms |");
        System.out.println("|---|---|---:|---:|---:|---:|");
        for (boolean agent : new boolean[] {false, true}) {
            try (ServerHandle server = ServerHandle.tomcat9(agent)) {
                long startup = server.start();
                String name = agent ? "with agent" : "without agent";
                load(server, seconds / 3, connections, false);
                print(name, "POST /ping, no key", load(server, seconds, connections, false), startup);
                if (agent) {
                    load(server, seconds / 3, connections, true);
                    print(name, "POST /ping, new key each", load(server, seconds, connections, true), startup);
                }
            }
        }
    }

    private static void print(String server, String request, Result r, long startupMillis) {
        System.out.printf("| %s | %s | %.0f | %.2f | %.2f | %d |%n", server, request, r.perSecond, r.p50Millis, r.p99Millis, startupMillis);
    }

    private static final class Result {
        double perSecond;
        double p50Millis;
        double p99Millis;
    }

    private static Result load(ServerHandle server, int seconds, int connections, boolean keyed) throws Exception {
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        AtomicLong total = new AtomicLong();
        List<long[]> samples = new ArrayList<>();
        CountDownLatch done = new CountDownLatch(connections);
        List<Throwable> failures = new ArrayList<>();
        for (int c = 0; c < connections; c++) {
            long[] latencies = new long[1 << 21];
            samples.add(latencies);
            new Thread(() -> {
                int n = 0;
                Socket socket = null;
                InputStream in = null;
                try {
                    while (System.nanoTime() < end) {
                        if (socket == null) {
                            socket = new Socket("127.0.0.1", server.port());
                            socket.setTcpNoDelay(true);
                            in = new BufferedInputStream(socket.getInputStream());
                        }
                        String key = keyed ? "Idempotency-Key: " + UUID.randomUUID() + "\r\n" : "";
                        long start = System.nanoTime();
                        OutputStream out = socket.getOutputStream();
                        out.write(("POST /shop/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n" + key + "\r\n")
                                .getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                        // Tomcat closes a keep-alive connection after 100 requests: open the next one then.
                        if (!readResponse(in)) {
                            socket.close();
                            socket = null;
                        }
                        if (n < latencies.length) latencies[n] = System.nanoTime() - start;
                        n++;
                    }
                } catch (Throwable t) {
                    synchronized (failures) {
                        failures.add(t);
                    }
                } finally {
                    try {
                        if (socket != null) socket.close();
                    } catch (IOException ignored) {
                        // closing
                    }
                    total.addAndGet(n);
                    done.countDown();
                }
            }).start();
        }
        done.await();
        if (!failures.isEmpty()) throw new IllegalStateException("load failed", failures.get(0));
        long[] all = samples.stream().flatMapToLong(Arrays::stream).filter(x -> x > 0).sorted().toArray();
        Result r = new Result();
        r.perSecond = total.get() / (double) seconds;
        r.p50Millis = all[all.length / 2] / 1e6;
        r.p99Millis = all[(int) (all.length * 0.99)] / 1e6;
        return r;
    }

    /** Reads one response (Content-Length or chunked body); fails on anything but 200; false if the server closes. */
    private static boolean readResponse(InputStream in) throws IOException {
        String status = line(in);
        if (!status.startsWith("HTTP/1.1 200")) throw new IOException("unexpected response: " + status);
        int length = -1;
        boolean chunked = false;
        boolean close = false;
        for (String header; !(header = line(in)).isEmpty(); ) {
            String lower = header.toLowerCase();
            if (lower.startsWith("content-length:")) length = Integer.parseInt(header.substring(15).trim());
            if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) chunked = true;
            if (lower.startsWith("connection:") && lower.contains("close")) close = true;
        }
        if (chunked) {
            for (int size; (size = Integer.parseInt(line(in).trim(), 16)) > 0; ) {
                skip(in, size);
                line(in);
            }
            line(in);
        } else {
            skip(in, length);
        }
        return !close;
    }

    private static void skip(InputStream in, int n) throws IOException {
        for (int i = 0; i < n; i++) if (in.read() < 0) throw new IOException("connection closed");
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder s = new StringBuilder();
        for (int c; (c = in.read()) != '\n'; ) {
            if (c < 0) throw new IOException("connection closed");
            if (c != '\r') s.append((char) c);
        }
        return s.toString();
    }
}

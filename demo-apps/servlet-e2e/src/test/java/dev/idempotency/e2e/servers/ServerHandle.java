package dev.idempotency.e2e.servers;

/** A started or startable server for code outside this package (the benchmark harness). */
public final class ServerHandle implements AutoCloseable {
    private final ServerProcess server;

    private ServerHandle(ServerProcess server) {
        this.server = server;
    }

    public static ServerHandle tomcat9(boolean withAgent) throws Exception {
        return new ServerHandle(TomcatServer.tomcat9().withAgent(withAgent));
    }

    /** Tomcat 9 with the payments application, a maximum heap and agent settings. */
    public static ServerHandle tomcat9(boolean withAgent, String maxHeap, java.util.Map<String, String> settings) throws Exception {
        ServerProcess server = TomcatServer.tomcat9().withAgent(withAgent).heap(maxHeap);
        settings.forEach(server::set);
        return new ServerHandle(server);
    }

    /** What the server has written to its log so far. */
    public String log() throws java.io.IOException {
        return new String(java.nio.file.Files.readAllBytes(server.log()), java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Starts the server and returns how long it took to answer its first request, in milliseconds. */
    public long start() throws Exception {
        long begin = System.nanoTime();
        server.start();
        return (System.nanoTime() - begin) / 1_000_000;
    }

    public int port() {
        return server.port;
    }

    @Override
    public void close() throws Exception {
        server.close();
    }
}

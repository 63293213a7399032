package dev.idempotency.e2e.support;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** HTTP to the server under test: java.net.http for ordinary requests, a raw socket for headers no client would send. */
public final class Client {
    private final String baseUrl;
    private final String countersPath;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    public Client(String baseUrl) {
        this(baseUrl, "/counters");
    }

    /** A client of an application whose side-effect counters answer at {@code countersPath}. */
    public Client(String baseUrl, String countersPath) {
        this.baseUrl = baseUrl;
        this.countersPath = countersPath;
    }

    public HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(60));
    }

    public HttpResponse<byte[]> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    public java.util.concurrent.CompletableFuture<HttpResponse<byte[]>> sendAsync(HttpRequest.Builder request) {
        return http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    public HttpResponse<byte[]> postJson(String path, String key, String json) throws IOException, InterruptedException {
        HttpRequest.Builder r = request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) r.header("Idempotency-Key", key);
        return send(r);
    }

    /** How often the application performed each kind of side effect, from its own ledger. */
    public long count(String kind) throws IOException, InterruptedException {
        String json = new String(send(request(countersPath)).body(), StandardCharsets.UTF_8);
        Matcher m = Pattern.compile("\"" + Pattern.quote(kind) + "\":(\\d+)").matcher(json);
        if (!m.find()) throw new AssertionError("no counter " + kind + " in " + json);
        return Long.parseLong(m.group(1));
    }

    /** A raw HTTP/1.1 exchange; returns the final status code and the body (interim 1xx answers are skipped). */
    public static RawResponse raw(int port, String requestHead, byte[] body) throws IOException {
        return raw(port, requestHead, body, false);
    }

    /**
     * A raw exchange without a body, over once the final answer is in, without waiting for the server to close the
     * connection: the JDK HttpServer keeps it open to read the body declared.
     */
    public static RawResponse answer(int port, String requestHead) throws IOException {
        return raw(port, requestHead, new byte[0], true);
    }

    private static RawResponse raw(int port, String requestHead, byte[] body, boolean untilAnswered) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(requestHead.getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) {
                all.write(buffer, 0, n);
                if (untilAnswered && answered(finalAnswer(all.toString(StandardCharsets.ISO_8859_1)))) break;
            }
            String text = finalAnswer(all.toString(StandardCharsets.ISO_8859_1));
            int status = Integer.parseInt(text.substring(9, 12));
            int split = text.indexOf("\r\n\r\n");
            return new RawResponse(status, text.substring(0, split), text.substring(split + 4));
        }
    }

    /** What follows the interim answers (100 Continue) received in full. */
    private static String finalAnswer(String text) {
        while (text.startsWith("HTTP/1.1 1") && text.contains("\r\n\r\n")) text = text.substring(text.indexOf("\r\n\r\n") + 4);
        return text;
    }

    /** The final answer is in: its Content-Length bytes, or its last chunk (the body stays as sent, chunked or not). */
    private static boolean answered(String text) {
        int split = text.indexOf("\r\n\r\n");
        if (text.startsWith("HTTP/1.1 1") || split < 0) return false;
        String head = text.substring(0, split);
        if (Pattern.compile("(?im)^transfer-encoding:\\s*chunked").matcher(head).find()) return text.endsWith("\r\n0\r\n\r\n");
        Matcher length = Pattern.compile("(?im)^content-length:\\s*(\\d+)").matcher(head);
        return length.find() && text.length() - split - 4 >= Long.parseLong(length.group(1));
    }

    public record RawResponse(int status, String head, String body) { }
}

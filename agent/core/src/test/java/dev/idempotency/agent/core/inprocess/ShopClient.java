package dev.idempotency.agent.core.inprocess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A plain HTTP/1.1 client of a running shop. */
final class ShopClient {
    static final String JSON = "application/json";
    static final String FORM = "application/x-www-form-urlencoded; charset=UTF-8";

    private final String baseUrl;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    ShopClient(String baseUrl) {
        this.baseUrl = baseUrl;
    }

    /** A POST of {@code body} (none when null), with the key unless it is null. */
    HttpResponse<byte[]> post(String path, String key, String contentType, String body)
            throws IOException, InterruptedException {
        return http.send(request(path, key, contentType, body), HttpResponse.BodyHandlers.ofByteArray());
    }

    CompletableFuture<HttpResponse<byte[]>> postAsync(String path, String key, String contentType, String body) {
        return http.sendAsync(request(path, key, contentType, body), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpRequest request(String path, String key, String contentType, String body) {
        HttpRequest.BodyPublisher content = body == null ? HttpRequest.BodyPublishers.noBody()
                : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8);
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(30))
                .POST(content);
        if (contentType != null) request.header("Content-Type", contentType);
        if (key != null) request.header("Idempotency-Key", key);
        return request.build();
    }
}

package dev.idempotency.demo.transfers;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** A POST of a JSON body through Apache HttpClient 4 and 5 and OkHttp, as an application written for them makes it. */
final class OtherClients {
    private OtherClients() {
    }

    static int postWithApache4(String url, String body, String ownKey) throws IOException {
        try (org.apache.http.impl.client.CloseableHttpClient http = org.apache.http.impl.client.HttpClients.createDefault()) {
            org.apache.http.client.methods.HttpPost post = new org.apache.http.client.methods.HttpPost(url);
            post.setEntity(new org.apache.http.entity.StringEntity(body, org.apache.http.entity.ContentType.APPLICATION_JSON));
            if (ownKey != null) post.setHeader("Idempotency-Key", ownKey);
            try (org.apache.http.client.methods.CloseableHttpResponse response = http.execute(post)) {
                org.apache.http.util.EntityUtils.consume(response.getEntity());
                return response.getStatusLine().getStatusCode();
            }
        }
    }

    static int postWithApache5(String url, String body, String ownKey) throws IOException {
        try (org.apache.hc.client5.http.impl.classic.CloseableHttpClient http = org.apache.hc.client5.http.impl.classic.HttpClients.createDefault()) {
            org.apache.hc.client5.http.classic.methods.HttpPost post = new org.apache.hc.client5.http.classic.methods.HttpPost(url);
            post.setEntity(new org.apache.hc.core5.http.io.entity.StringEntity(body, org.apache.hc.core5.http.ContentType.APPLICATION_JSON));
            if (ownKey != null) post.setHeader("Idempotency-Key", ownKey);
            return http.execute(post, response -> {
                org.apache.hc.core5.http.io.entity.EntityUtils.consume(response.getEntity());
                return response.getCode();
            });
        }
    }

    private static final okhttp3.OkHttpClient OKHTTP = new okhttp3.OkHttpClient();

    static int postWithOkHttp(String url, String body, String ownKey) throws IOException {
        okhttp3.Request.Builder request = new okhttp3.Request.Builder().url(url)
                .post(okhttp3.RequestBody.create(body.getBytes(StandardCharsets.UTF_8), okhttp3.MediaType.get("application/json")));
        if (ownKey != null) request.header("Idempotency-Key", ownKey);
        try (okhttp3.Response response = OKHTTP.newCall(request.build()).execute()) {
            response.body().bytes();
            return response.code();
        }
    }
}

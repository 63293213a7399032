package dev.idempotency.agent.core.effects;

import java.lang.reflect.Method;

/** Calls through the real Apache HttpClient 4 and 5 and OkHttp jars, woven as the transformer weaves them ({@link WovenJar}). */
final class WovenClients {
    private WovenClients() {
    }

    /** One call through the woven client, by reflection: the client's classes live in their own loader. */
    static void call(String client, String method, String url, String ownKey) throws Exception {
        ClassLoader loader = WovenJar.of("apache4".equals(client) ? "org.apache.http.impl.client.InternalHttpClient"
                : "apache5".equals(client) ? "org.apache.hc.client5.http.impl.classic.InternalHttpClient" : "okhttp3.internal.connection.RealCall");
        switch (client) {
            case "apache4":
            case "apache5": {
                String base = "apache4".equals(client) ? "org.apache.http.impl.client." : "org.apache.hc.client5.http.impl.classic.";
                String methods = "apache4".equals(client) ? "org.apache.http.client.methods." : "org.apache.hc.client5.http.classic.methods.";
                Object http = loader.loadClass(base + "HttpClients").getMethod("createDefault").invoke(null);
                Object request = loader.loadClass(methods + ("GET".equals(method) ? "HttpGet" : "HttpPost")).getConstructor(String.class).newInstance(url);
                if (ownKey != null) {
                    for (Method m : request.getClass().getMethods()) {
                        if (m.getName().equals("addHeader") && m.getParameterCount() == 2 && m.getParameterTypes()[0] == String.class) {
                            m.invoke(request, "Idempotency-Key", ownKey);
                            break;
                        }
                    }
                }
                Method execute = null;
                for (Method m : http.getClass().getMethods()) {
                    if (m.getName().equals("execute") && m.getParameterCount() == 1
                            && (m.getParameterTypes()[0].getSimpleName().equals("HttpUriRequest") || m.getParameterTypes()[0].getSimpleName().equals("ClassicHttpRequest"))) {
                        execute = m;
                    }
                }
                Object response = execute.invoke(http, request);
                ((java.io.Closeable) response).close();
                ((java.io.Closeable) http).close();
                return;
            }
            default: {
                Object http = loader.loadClass("okhttp3.OkHttpClient").getConstructor().newInstance();
                Object builder = loader.loadClass("okhttp3.Request$Builder").getConstructor().newInstance();
                builder.getClass().getMethod("url", String.class).invoke(builder, url);
                if (ownKey != null) builder.getClass().getMethod("header", String.class, String.class).invoke(builder, "Idempotency-Key", ownKey);
                if ("POST".equals(method)) {
                    Class<?> body = loader.loadClass("okhttp3.RequestBody");
                    Object empty = body.getMethod("create", byte[].class, loader.loadClass("okhttp3.MediaType")).invoke(null, new byte[0], null);
                    builder.getClass().getMethod("post", body).invoke(builder, empty);
                }
                Object request = builder.getClass().getMethod("build").invoke(builder);
                Object call = http.getClass().getMethod("newCall", request.getClass()).invoke(http, request);
                Object response = call.getClass().getMethod("execute").invoke(call);
                ((java.io.Closeable) response).close();
            }
        }
    }
}

package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.core.gate.ContainerRendered;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends a recorded answer: its status, headers and body, or the container's rendering of a recorded call; cookies the
 * application added are added again, for the container to write as it did the first time.
 */
final class AnswerSender {
    private AnswerSender() {
    }

    static void send(ServletAccessor http, Object response, int status, List<String[]> headers, byte[] body,
                     boolean keepEarlierHeaders) throws IOException {
        String[] call = null;
        List<String> cookies = new ArrayList<>(0);
        List<String[]> sent = new ArrayList<>(headers.size());
        for (String[] header : headers) {
            if (ContainerRendered.isMarker(header[0])) call = header;
            else if (ServletAccessor.ADDED_COOKIE.equalsIgnoreCase(header[0])) cookies.add(header[1]);
            else sent.add(header);
        }
        if (call == null && cookies.isEmpty()) {
            http.send(response, status, sent, body, keepEarlierHeaders);
            return;
        }
        http.setHead(response, status, sent, keepEarlierHeaders);
        for (String cookie : cookies) http.addCookie(response, cookie); // the container writes it in its own form
        if (call != null) {
            render(http, response, status, call, body);
            return;
        }
        writeBody(http, response, body);
    }

    /** A body whose status and headers are set already, with its Content-Length. */
    static void writeBody(ServletAccessor http, Object response, byte[] body) throws IOException {
        http.setContentLength(response, body.length);
        OutputStream out = http.outputStream(response);
        out.write(body);
        out.flush();
    }

    /**
     * The container makes the recorded call on {@code response}, whose status and headers are set; a redirect that
     * keeps the buffer (Servlet 6.1) keeps {@code body}, what the application wrote before it.
     */
    static void render(ServletAccessor http, Object response, int status, String[] call, byte[] body) throws IOException {
        if (ContainerRendered.isError(call)) {
            http.sendError(response, status, ContainerRendered.errorMessage(call));
            return;
        }
        boolean clearBuffer = ContainerRendered.redirectClearsBuffer(call);
        if (!clearBuffer && body.length > 0) http.outputStream(response).write(body);
        http.sendRedirect(response, ContainerRendered.redirectLocation(call), status, clearBuffer);
    }
}

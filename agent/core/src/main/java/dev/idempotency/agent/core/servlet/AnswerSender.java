package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.core.gate.ContainerRendered;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Sends a recorded answer: its status, headers and body, or the container's rendering of a recorded call. */
final class AnswerSender {
    private AnswerSender() {
    }

    static void send(ServletAccessor http, Object response, int status, List<String[]> headers, byte[] body,
                     boolean keepEarlierHeaders) throws IOException {
        String[] call = null;
        List<String[]> sent = new ArrayList<>(headers.size());
        for (String[] header : headers) {
            if (ContainerRendered.isMarker(header[0])) call = header;
            else sent.add(header);
        }
        if (call == null) {
            http.send(response, status, sent, body, keepEarlierHeaders);
            return;
        }
        http.setHead(response, status, sent, keepEarlierHeaders);
        render(http, response, status, call, body);
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

package dev.idempotency.agent.core.gate;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;

import java.util.ArrayList;
import java.util.List;

/**
 * An answer the application left to its container: {@code sendError} (the container's error page, or the
 * application's own mapped in web.xml) and {@code sendRedirect} (the container makes the Location: relative, from the
 * server's root or absolute, by its own settings). Recorded as the call, in a marker header that no client sees, and
 * made by the container on the first response and on replays, so that each is what a client without a key gets from
 * that server. An error page the container dispatches to replaces the call once rendered (ErrorPageExchange); one it
 * writes itself is rendered again for each replay.
 */
public final class ContainerRendered {
    /** Marks a recorded sendError; the value is "" for no message, else "=" and the message. */
    static final String ERROR = "X-Idempotency-Agent-Send-Error";
    /** Marks a recorded sendRedirect; the value is "clear;" or "keep;" (the buffer) and the location as given. */
    static final String REDIRECT = "X-Idempotency-Agent-Send-Redirect";

    private ContainerRendered() {
    }

    public static String[] error(String message) {
        return new String[] {ERROR, message == null ? "" : "=" + message};
    }

    public static String[] redirect(String location, boolean clearBuffer) {
        return new String[] {REDIRECT, (clearBuffer ? "clear;" : "keep;") + location};
    }

    public static boolean isMarker(String name) {
        return ERROR.equalsIgnoreCase(name) || REDIRECT.equalsIgnoreCase(name);
    }

    public static boolean isError(String[] marker) {
        return ERROR.equalsIgnoreCase(marker[0]);
    }

    /** The message of a sendError marker, or null. */
    public static String errorMessage(String[] marker) {
        return marker[1].isEmpty() ? null : marker[1].substring(1);
    }

    public static String redirectLocation(String[] marker) {
        return marker[1].substring(marker[1].indexOf(';') + 1);
    }

    public static boolean redirectClearsBuffer(String[] marker) {
        return marker[1].startsWith("clear;");
    }

    /**
     * For a runtime that answers without the container (JAX-RS): the status, with the redirect's Location as given and
     * an added cookie as its Set-Cookie.
     */
    public static List<String[]> withoutMarkers(List<String[]> headers) {
        List<String[]> plain = new ArrayList<>(headers.size());
        for (String[] header : headers) {
            if (REDIRECT.equalsIgnoreCase(header[0])) plain.add(new String[] {"Location", redirectLocation(header)});
            else if (ServletAccessor.ADDED_COOKIE.equalsIgnoreCase(header[0])) plain.add(new String[] {"Set-Cookie", header[1]});
            else if (!isMarker(header[0])) plain.add(header);
        }
        return plain;
    }
}

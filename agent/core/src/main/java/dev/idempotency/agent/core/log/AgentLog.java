package dev.idempotency.agent.core.log;

import java.io.PrintStream;

/**
 * The agent's own concise lines on stderr, prefixed {@code [idempotency-agent]}. It never touches
 * {@code java.util.logging} or any logging framework of the host.
 */
public final class AgentLog {
    public enum Level { ERROR, WARN, INFO, DEBUG }

    private static volatile Level threshold = Level.INFO;
    private static volatile PrintStream out = System.err;

    private AgentLog() {
    }

    public static void setLevel(Level level) { threshold = level; }

    /** Where the log goes from now on (stderr unless a test reads it); returns where it went. */
    public static PrintStream writeTo(PrintStream to) {
        PrintStream before = out;
        out = to;
        return before;
    }

    public static boolean isEnabled(Level level) { return level.ordinal() <= threshold.ordinal(); }

    public static void error(String message) { log(Level.ERROR, message, null); }
    public static void error(String message, Throwable t) { log(Level.ERROR, message, t); }
    public static void warn(String message) { log(Level.WARN, message, null); }
    public static void warn(String message, Throwable t) { log(Level.WARN, message, t); }
    public static void info(String message) { log(Level.INFO, message, null); }
    public static void debug(String message) { log(Level.DEBUG, message, null); }

    private static void log(Level level, String message, Throwable t) {
        if (!isEnabled(level)) return;
        StringBuilder line = new StringBuilder("[idempotency-agent] ").append(level).append(' ').append(message);
        if (t != null) line.append(" (").append(t).append(')');
        out.println(line);
        if (t != null && isEnabled(Level.DEBUG)) t.printStackTrace(out);
    }
}

package dev.idempotency.agent.core.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.Locale;

/** Where the tool writes and asks: the terminal, or streams in tests. */
final class CliConsole {
    final PrintStream out;
    final PrintStream err;
    private final BufferedReader in;

    CliConsole(PrintStream out, PrintStream err, InputStream in) {
        this.out = out;
        this.err = err;
        this.in = new BufferedReader(new InputStreamReader(in, Charset.defaultCharset()));
    }

    /** Asks a yes/no question; anything but y or yes (including no answer at all) is no. */
    boolean confirm(String question) {
        out.print(question + " [y/N] ");
        out.flush();
        try {
            String answer = in.readLine();
            if (answer == null) out.println();
            String a = answer == null ? "" : answer.trim().toLowerCase(Locale.ROOT);
            return a.equals("y") || a.equals("yes");
        } catch (IOException e) {
            return false;
        }
    }
}

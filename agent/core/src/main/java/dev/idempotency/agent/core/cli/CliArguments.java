package dev.idempotency.agent.core.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The words of a command line: positional words in order, {@code --option value} (or {@code --option=value}) and flags. */
final class CliArguments {
    private static final Set<String> WITH_VALUE = new HashSet<>(Arrays.asList(
            "config", "url", "user", "password", "table", "status", "scope", "older-than", "limit", "body-file",
            "content-type", "partitioning", "metrics"));
    private static final Set<String> FLAGS = new HashSet<>(Arrays.asList("json", "yes", "retry", "completed", "help"));

    private final List<String> positional = new ArrayList<>();
    private final Map<String, String> options = new HashMap<>();
    private final Set<String> flags = new HashSet<>();

    CliArguments(String[] args) {
        boolean optionsEnded = false;
        for (int i = 0; i < args.length; i++) {
            String word = args[i];
            if (!optionsEnded && word.equals("--")) {
                optionsEnded = true; // what follows is positional, even a key that starts with --
                continue;
            }
            if (optionsEnded || !word.startsWith("--")) {
                positional.add(word);
                continue;
            }
            String name = word.substring(2);
            String value = null;
            int equals = name.indexOf('=');
            if (equals >= 0) {
                value = name.substring(equals + 1);
                name = name.substring(0, equals);
            }
            if (FLAGS.contains(name)) {
                if (value != null) throw new UsageException("--" + name + " takes no value");
                flags.add(name);
            } else if (WITH_VALUE.contains(name)) {
                if (value == null) {
                    if (i + 1 >= args.length) throw new UsageException("--" + name + " needs a value");
                    value = args[++i];
                }
                if (options.put(name, value) != null) throw new UsageException("--" + name + " is given twice");
            } else {
                throw new UsageException("unknown option --" + name);
            }
        }
    }

    List<String> positional() {
        return Collections.unmodifiableList(positional);
    }

    String positional(int index) {
        return index < positional.size() ? positional.get(index) : null;
    }

    String option(String name) {
        return options.get(name);
    }

    boolean flag(String name) {
        return flags.contains(name);
    }

    /** Fails when an option or flag was given that the command does not use (a typo would otherwise be ignored). */
    void allowOnly(String command, String... names) {
        Set<String> allowed = new HashSet<>(Arrays.asList(names));
        allowed.addAll(Arrays.asList("config", "url", "user", "password", "table", "help"));
        for (String name : options.keySet()) if (!allowed.contains(name)) throw new UsageException(command + " does not take --" + name);
        for (String name : flags) if (!allowed.contains(name)) throw new UsageException(command + " does not take --" + name);
    }

    /** Exactly {@code count} positional words after the command's own {@code skip} words. */
    void expectPositional(String command, int count) {
        if (positional.size() != count) {
            throw new UsageException(command + " takes " + count + " argument" + (count == 1 ? "" : "s") + ", got " + positional.size());
        }
    }
}

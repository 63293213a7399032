package dev.idempotency.store.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The shipped DDL of schema version 1, as the first release created it (kept under test resources/schema-v1). */
public final class VersionOneSchema {
    private VersionOneSchema() {
    }

    /** The statements for {@code dialect}'s table {@code table}, whose unqualified part is {@code name}. */
    public static List<String> statements(String dialect, String table, String name) {
        String script;
        try (InputStream in = VersionOneSchema.class.getClassLoader().getResourceAsStream("schema-v1/" + dialect + ".sql")) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        StringBuilder withoutComments = new StringBuilder();
        for (String line : script.replace("${table}", table).replace("${name}", name).split("\n")) {
            if (!line.trim().startsWith("--")) withoutComments.append(line).append('\n');
        }
        return Arrays.stream(withoutComments.toString().split(";\n")).filter(s -> !s.trim().isEmpty()).collect(Collectors.toList());
    }
}

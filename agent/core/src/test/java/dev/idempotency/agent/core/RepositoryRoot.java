package dev.idempotency.agent.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** For tests that read the repository's own files (documentation, sources): its root, above the module's directory. */
public final class RepositoryRoot {
    private RepositoryRoot() {
    }

    public static Path path() {
        Path p = Paths.get("").toAbsolutePath();
        while (p != null && !(Files.exists(p.resolve("mvnw")) && Files.isDirectory(p.resolve("agent")))) p = p.getParent();
        if (p == null) throw new IllegalStateException("no repository root above " + Paths.get("").toAbsolutePath());
        return p;
    }
}

package dev.idempotency.e2e.servers;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An executable jar (Spring Boot), started as its users start it: java -javaagent:... -jar app.jar. */
public final class JarServer extends ServerProcess {
    private final Path jar;
    private final List<String> arguments;

    public JarServer(String name, Path jar, List<String> arguments) throws IOException {
        super(name);
        this.jar = jar;
        this.arguments = arguments;
    }

    @Override
    protected void prepare() {
    }

    @Override
    protected List<String> command(Path java, List<String> jvmOptions) {
        List<String> cmd = new ArrayList<>();
        cmd.add(java.toString());
        cmd.addAll(jvmOptions);
        cmd.add("-jar");
        cmd.add(jar.toString());
        for (String a : arguments) cmd.add(a.replace("{port}", String.valueOf(port)));
        return cmd;
    }
}

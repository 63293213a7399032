package dev.idempotency.agent.bootstrap;

import java.io.File;
import java.lang.reflect.InvocationTargetException;

/**
 * {@code java -jar idempotency-agent.jar <command>}: the agent jar is also the operator's tool. Like the premain, it
 * only creates the isolated loader and hands over; the commands live in the agent core.
 */
public final class OperatorCommandLine {
    private static final String COMMANDS = "dev.idempotency.agent.core.cli.OperatorCli";

    private OperatorCommandLine() {
    }

    public static void main(String[] args) {
        int exitCode;
        try {
            File jar = IdempotencyAgent.agentJar();
            Class<?> cli = Class.forName(COMMANDS, true, new AgentClassLoader(jar));
            exitCode = (Integer) cli.getMethod("run", String[].class, File.class).invoke(null, args, jar);
        } catch (InvocationTargetException e) {
            System.err.println("idempotency-agent: internal error: " + e.getCause());
            exitCode = 1;
        } catch (Exception e) {
            System.err.println("idempotency-agent: cannot start the command line: " + e);
            exitCode = 1;
        }
        System.exit(exitCode);
    }
}

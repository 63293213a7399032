package dev.idempotency.agent.core.cli;

/** The command line is wrong: the tool prints this message and the usage, and exits with 2. */
final class UsageException extends RuntimeException {
    UsageException(String message) {
        super(message);
    }
}

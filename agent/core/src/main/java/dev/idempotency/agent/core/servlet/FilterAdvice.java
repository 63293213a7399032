package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletBridge;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Inlined into {@code doFilter(request, response, chain)} of every filter: the outermost one takes a keyed request's
 * body, so that filters which read the form first leave the application its fields; a filter that is the application
 * itself decides there. Otherwise like {@link ServletAdvice}.
 */
public final class FilterAdvice {
    private FilterAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static boolean enter(@Advice.This Object filter,
                                @Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object request,
                                @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object response,
                                @Advice.Local("exchange") ServletExchange exchange) {
        exchange = ServletBridge.enterFilter(filter, request, response);
        if (exchange == null) return false;
        if (exchange.answered()) return true;
        request = exchange.request();
        response = exchange.response();
        return false;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    public static void exit(@Advice.Argument(0) Object request,
                            @Advice.Local("exchange") ServletExchange exchange,
                            @Advice.Thrown Throwable thrown) {
        if (exchange != null) ServletBridge.exit(exchange, request, thrown);
    }
}

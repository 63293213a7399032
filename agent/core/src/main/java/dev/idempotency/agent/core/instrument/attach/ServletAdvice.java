package dev.idempotency.agent.core.instrument.attach;

import dev.idempotency.agent.bootstrap.bridge.ServletBridge;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Inlined into {@code service(request, response)} of every servlet and {@code doFilter(request, response, chain)} of
 * every filter: hands the call to the bridge, lets what follows see the agent's wrappers, or skips the application
 * when the agent answered itself. Namespace-free: it only passes objects on. Any fault of its own is suppressed.
 */
public final class ServletAdvice {
    private ServletAdvice() {
    }

    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
    public static boolean enter(@Advice.This Object component,
                                @Advice.Origin("#m") String method,
                                @Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object request,
                                @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object response,
                                @Advice.Local("exchange") ServletExchange exchange) {
        exchange = ServletBridge.enter(component, method, request, response);
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

package dev.idempotency.agent.core.instrument.attach;

import dev.idempotency.agent.bootstrap.bridge.JaxrsBridge;
import net.bytebuddy.asm.Advice;

/** Inlined at the end of every Jersey {@code ResourceConfig} constructor: the new configuration gets the agent's filter. */
public final class ResourceConfigAdvice {
    private ResourceConfigAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This Object resourceConfig) {
        JaxrsBridge.registerAgentFilter(resourceConfig);
    }
}

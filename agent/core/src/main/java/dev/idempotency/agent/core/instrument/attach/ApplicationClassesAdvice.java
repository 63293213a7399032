package dev.idempotency.agent.core.instrument.attach;

import dev.idempotency.agent.bootstrap.bridge.JaxrsBridge;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/** Inlined at the end of every {@code Application.getClasses()}: the runtime also gets the agent's filter. */
public final class ApplicationClassesAdvice {
    private ApplicationClassesAdvice() {
    }

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This Object application,
                            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object classes) {
        classes = JaxrsBridge.withAgentFilter(application, classes);
    }
}

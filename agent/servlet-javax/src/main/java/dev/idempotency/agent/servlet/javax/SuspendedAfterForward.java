package dev.idempotency.agent.servlet.javax;

import javax.servlet.ServletResponse;
import javax.servlet.ServletResponseWrapper;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * Tomcat suspends the container's response when a forward went through a wrapped response (the context's
 * {@code suspendWrappedResponseAfterForward}, on by default from Tomcat 11): what is written to it afterwards is
 * dropped, and the response reads as committed. The agent's response is such a wrapper, and what it sends afterwards
 * is the forward's own output, captured: the suspension is lifted first, on a response whose head has not left yet.
 * Tomcat is found by class name, so nothing here needs it; any other container's response is left alone.
 */
final class SuspendedAfterForward {
    private static final String TOMCAT_FACADE = "org.apache.catalina.connector.ResponseFacade";

    /** Tomcat's facade class to its {@code response} field (the connector's Response); null where it has none. */
    private static final ClassValue<Field> CONNECTOR_RESPONSE = new ClassValue<Field>() {
        @Override
        protected Field computeValue(Class<?> facade) {
            try {
                Field field = facade.getDeclaredField("response");
                field.setAccessible(true);
                return field;
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    };

    /**
     * The connector response class to its {@code isSuspended()}, {@code isCommitted()} and {@code setSuspended(boolean)},
     * looked up once (a lookup per keyed request showed in profiles); null where it lacks one.
     */
    private static final ClassValue<Method[]> SUSPENSION = new ClassValue<Method[]>() {
        @Override
        protected Method[] computeValue(Class<?> connector) {
            try {
                return new Method[] {connector.getMethod("isSuspended"), connector.getMethod("isCommitted"),
                        connector.getMethod("setSuspended", boolean.class)};
            } catch (ReflectiveOperationException | RuntimeException e) {
                return null;
            }
        }
    };

    private SuspendedAfterForward() {
    }

    static void lift(ServletResponse response) {
        ServletResponse r = response;
        while (r instanceof ServletResponseWrapper) r = ((ServletResponseWrapper) r).getResponse();
        if (r == null || !TOMCAT_FACADE.equals(r.getClass().getName())) return;
        // Tomcat's facade reads as committed whenever its response is suspended: one plain call spares almost every
        // keyed request the reflective look below.
        if (!r.isCommitted()) return;
        Field field = CONNECTOR_RESPONSE.get(r.getClass());
        if (field == null) return;
        try {
            Object connector = field.get(r);
            if (connector == null) return;
            Method[] suspension = SUSPENSION.get(connector.getClass());
            if (suspension == null) return;
            // The facade's isCommitted() says true for a suspended response; the connector's says whether bytes left.
            if (!Boolean.TRUE.equals(suspension[0].invoke(connector)) || Boolean.TRUE.equals(suspension[1].invoke(connector))) {
                return;
            }
            suspension[2].invoke(connector, false);
        } catch (ReflectiveOperationException | RuntimeException e) {
            // a Tomcat other than the ones known: its response stays as it is
        }
    }
}

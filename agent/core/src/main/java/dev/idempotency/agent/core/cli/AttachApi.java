package dev.idempotency.agent.core.cli;

import net.bytebuddy.agent.ByteBuddyAgent;

import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * The JDK's attach API ({@code com.sun.tools.attach}), found through Byte Buddy's attachment providers (the module
 * {@code jdk.attach} on Java 9+, {@code tools.jar} on Java 8) and called reflectively: the tool's own loader cannot
 * link against it.
 */
final class AttachApi {
    private final Class<?> virtualMachine;

    private AttachApi(Class<?> virtualMachine) {
        this.virtualMachine = virtualMachine;
    }

    static AttachApi load() {
        ByteBuddyAgent.AttachmentProvider.Accessor accessor = ByteBuddyAgent.AttachmentProvider.DEFAULT.attempt();
        if (!accessor.isAvailable()) {
            throw new AttachFailure("this Java (" + System.getProperty("java.home") + ") has no attach API: run the tool with a"
                    + " JDK's java (the jdk.attach module), not a JRE");
        }
        try {
            return new AttachApi(accessor.getVirtualMachineType());
        } catch (RuntimeException e) {
            throw new AttachFailure("the attach API cannot be loaded: " + e);
        }
    }

    static String currentPid() {
        String name = ManagementFactory.getRuntimeMXBean().getName();
        return name.contains("@") ? name.substring(0, name.indexOf('@')) : name;
    }

    List<Jvm> list() {
        List<Jvm> jvms = new ArrayList<>();
        for (Object descriptor : (List<?>) call(null, "list")) {
            jvms.add(new Jvm(String.valueOf(call(descriptor, "id")), String.valueOf(call(descriptor, "displayName"))));
        }
        return jvms;
    }

    Session attach(String pid) {
        try {
            return new Session(virtualMachine.getMethod("attach", String.class).invoke(null, pid), pid);
        } catch (InvocationTargetException e) {
            throw new AttachFailure("cannot attach to JVM " + pid + ": " + e.getCause().getMessage()
                    + " (is it running, a HotSpot or OpenJ9 JVM of this user, and started without -XX:+DisableAttachMechanism?)");
        } catch (ReflectiveOperationException e) {
            throw new AttachFailure("the attach API failed: " + e);
        }
    }

    private Object call(Object target, String method) {
        try {
            Class<?> type = target == null ? virtualMachine : target.getClass();
            return type.getMethod(method).invoke(target);
        } catch (InvocationTargetException e) {
            throw new AttachFailure(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
        } catch (ReflectiveOperationException e) {
            throw new AttachFailure("the attach API failed: " + e);
        }
    }

    /** A JVM the attach API sees. */
    static final class Jvm {
        final String id;
        final String displayName;

        Jvm(String id, String displayName) {
            this.id = id;
            this.displayName = displayName;
        }
    }

    /** An attached JVM; detached on close. */
    final class Session implements AutoCloseable {
        private final Object vm;
        private final String pid;

        Session(Object vm, String pid) {
            this.vm = vm;
            this.pid = pid;
        }

        Properties systemProperties() {
            return (Properties) invoke("getSystemProperties");
        }

        /** The JMX service URL of the JVM's local management agent, started if it is not running. */
        String localManagementUrl() {
            return String.valueOf(invoke("startLocalManagementAgent"));
        }

        void loadAgent(String jar, String options) {
            try {
                invoke("loadAgent", jar, options);
            } catch (AttachFailure e) {
                throw new AttachFailure("loading the agent into JVM " + pid + " failed: " + e.getMessage());
            }
        }

        private Object invoke(String method, Object... args) {
            try {
                Class<?>[] types = new Class<?>[args.length];
                for (int i = 0; i < args.length; i++) types[i] = String.class;
                return virtualMachine.getMethod(method, types).invoke(vm, args);
            } catch (InvocationTargetException e) {
                throw new AttachFailure(e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
            } catch (ReflectiveOperationException e) {
                throw new AttachFailure("the attach API failed: " + e);
            }
        }

        @Override
        public void close() {
            try {
                virtualMachine.getMethod("detach").invoke(vm);
            } catch (ReflectiveOperationException ignored) {
                // the connection ends with this process anyway
            }
        }
    }

    /** Attaching failed for a reason the operator can act on; one line. */
    static final class AttachFailure extends RuntimeException {
        AttachFailure(String message) {
            super(message);
        }
    }
}

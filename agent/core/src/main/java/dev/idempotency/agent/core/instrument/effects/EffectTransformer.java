package dev.idempotency.agent.core.instrument.effects;

import dev.idempotency.agent.core.instrument.ClassFileText;
import dev.idempotency.agent.core.instrument.LoaderSees;
import dev.idempotency.agent.core.instrument.SuperTypeWalk;
import dev.idempotency.agent.core.log.AgentLog;
import dev.idempotency.store.families.StoreFamilies;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Weaves the effect hooks into the classes {@link EffectHooks} names, as they load or, for those loaded already (an
 * attach, a JDK class the JVM loaded early), by retransformation. Registered under on-expired-lease=transaction (every
 * role), or with only the HTTP clients when outbound calls get derived keys.
 */
public final class EffectTransformer implements ClassFileTransformer {
    private static final String BRIDGE_RESOURCE = EffectWeaver.BRIDGE + ".class";

    private final ClassLoader agentLoader = EffectTransformer.class.getClassLoader();
    /**
     * The JDK's platform loader (java.net.http): it asks the bootstrap loader, and so finds the bridge, for every package
     * outside its modules, though it does not list the bridge as a resource. Null on Java 8.
     */
    private static final ClassLoader PLATFORM = platformLoader();
    private final LoaderSees seesBridge = new LoaderSees(loader -> AgentLog.warn("the class loader " + loader + " cannot see the"
            + " agent's bridge: the JDBC drivers and HTTP clients it loads are NOT watched, and requests using them may run twice"
            + " after a crash under on-expired-lease=transaction"), BRIDGE_RESOURCE);

    /** False: only the HTTP clients (derived keys without transaction recovery). */
    private final boolean everyRole;

    public EffectTransformer(boolean everyRole) {
        this.everyRole = everyRole;
    }

    /**
     * Registers the hooks for classes to come and retransforms the hooked classes already loaded; {@code everyRole}
     * false: the HTTP clients only.
     */
    public static void register(Instrumentation instrumentation, boolean everyRole) {
        EffectTransformer transformer = new EffectTransformer(everyRole);
        readBridgeFromJdkModules(instrumentation);
        instrumentation.addTransformer(transformer, true);
        List<Class<?>> loaded = new ArrayList<>();
        for (Class<?> type : instrumentation.getAllLoadedClasses()) {
            if (transformer.roleOf(type.getName().replace('.', '/')) != null && instrumentation.isModifiableClass(type)) loaded.add(type);
        }
        for (Class<?> type : loaded) {
            try {
                instrumentation.retransformClasses(type);
            } catch (Throwable t) {
                AgentLog.warn("could not watch " + type.getName() + ", loaded before the agent: its effects are NOT seen", t);
            }
        }
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain, byte[] classFile) {
        if (internalName == null || classFile == null || loader == agentLoader) return null;
        EffectHooks.Role role = roleOf(internalName);
        if (role == null && everyRole && loader != null && ClassFileText.contains(classFile, JMS)) role = jmsProducer(loader, classFile);
        // The store's own driver, from the jars of its driver path: its statements are the agent's, not the
        // application's.
        if (role == null || StoreFamilies.isDriverLoader(loader)) return null;
        if (loader != null && loader != PLATFORM && !seesBridge.matches(loader)) return null;
        try {
            byte[] woven = EffectWeaver.weave(classFile, role);
            if (woven != null) AgentLog.debug("watching effects of " + internalName.replace('/', '.'));
            return woven;
        } catch (Throwable t) {
            AgentLog.warn("could not watch " + internalName.replace('/', '.') + ": its effects are NOT seen", t);
            return null;
        }
    }

    private EffectHooks.Role roleOf(String internalName) {
        EffectHooks.Role role = EffectHooks.roleOf(internalName);
        return role != null && (everyRole || role.isHttp()) ? role : null;
    }

    private static ClassLoader platformLoader() {
        try {
            return (ClassLoader) ClassLoader.class.getMethod("getPlatformClassLoader").invoke(null);
        } catch (ReflectiveOperationException java8) {
            return null;
        }
    }

    private static final byte[] JMS = "/jms/".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** A class that mentions a JMS type and implements a JMS producer, directly or not; null for any other. */
    private static EffectHooks.Role jmsProducer(ClassLoader loader, byte[] classFile) {
        net.bytebuddy.jar.asm.ClassReader reader = new net.bytebuddy.jar.asm.ClassReader(classFile);
        if ((reader.getAccess() & net.bytebuddy.jar.asm.Opcodes.ACC_INTERFACE) != 0) return null;
        return SuperTypeWalk.reachable(loader, reader, EffectHooks.JMS_PRODUCERS).isEmpty() ? null : EffectHooks.Role.JMS_PRODUCER;
    }

    /**
     * JDK classes in named modules (java.base's HttpURLConnection, java.net.http's client) must read the unnamed module
     * of the bootstrap loader, where the bridge is, to call it. On Java 8 there are no modules; the API is reached by
     * reflection because the agent compiles for Java 8.
     */
    private static void readBridgeFromJdkModules(Instrumentation instrumentation) {
        try {
            Method getModule = Class.class.getMethod("getModule");
            Object bridgeModule = getModule.invoke(Class.forName(EffectWeaver.BRIDGE.replace('/', '.'), false, null));
            Class<?> moduleType = Class.forName("java.lang.Module");
            Method redefineModule = Instrumentation.class.getMethod("redefineModule", moduleType, java.util.Set.class,
                    java.util.Map.class, java.util.Map.class, java.util.Set.class, java.util.Map.class);
            List<Object> modules = new ArrayList<>();
            modules.add(getModule.invoke(Object.class));
            Object bootLayer = Class.forName("java.lang.ModuleLayer").getMethod("boot").invoke(null);
            Object httpModule = bootLayer.getClass().getMethod("findModule", String.class).invoke(bootLayer, "java.net.http");
            if (httpModule instanceof java.util.Optional && ((java.util.Optional<?>) httpModule).isPresent()) {
                modules.add(((java.util.Optional<?>) httpModule).get());
            }
            for (Object module : modules) {
                redefineModule.invoke(instrumentation, module, Collections.singleton(bridgeModule), Collections.emptyMap(),
                        Collections.emptyMap(), Collections.emptySet(), Collections.emptyMap());
            }
        } catch (ClassNotFoundException | NoSuchMethodException java8) {
            // no modules: every class reads every other
        } catch (Throwable t) {
            AgentLog.warn("the JDK's HTTP clients cannot call the agent's bridge: their calls are NOT watched", t);
        }
    }
}

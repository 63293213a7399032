package dev.idempotency.agent.core;

import dev.idempotency.agent.core.log.AgentLog;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Opcodes;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.security.ProtectionDomain;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

/**
 * The transformer the premain registers, before the host's main runs, so that no class escapes. It needs neither Byte
 * Buddy nor a set-up: a class that declares no method the agent advises (nearly every class a server loads) passes
 * after one walk of its constant pool; the few that do have their super types read from class files, and the servlets,
 * filters and JAX-RS applications among them are woven by {@link EntryWeaver}, on the thread that loads them. Byte
 * Buddy's thousand classes are loaded only by an attach to a running JVM.
 */
final class StartUpTransformer implements ClassFileTransformer {
    private static final DeclaredMethods ADVISED_METHODS = AdvisedMethods.inClassFiles();
    private static final String RESOURCE_CONFIG = AdvisedMethods.JERSEY_RESOURCE_CONFIG.replace('.', '/');
    private static final Set<String> SERVLETS = names("javax/servlet/Servlet", "jakarta/servlet/Servlet");
    private static final Set<String> FILTERS = names("javax/servlet/Filter", "jakarta/servlet/Filter");
    private static final Set<String> APPLICATIONS = names("javax/ws/rs/core/Application", "jakarta/ws/rs/core/Application");
    private static final Set<String> ANY_COMPONENT = union(SERVLETS, FILTERS, APPLICATIONS);
    /** Jersey's own applications gather the application's classes through its getClasses(): advised there. */
    private static final String JERSEY = "org/glassfish/jersey/";

    private final ClassLoader agentLoader = StartUpTransformer.class.getClassLoader();

    private StartUpTransformer() {
    }

    /** Registers the transformer, then loads what weaving needs on an agent thread, beside the host's start-up. */
    static StartUpTransformer register(Instrumentation instrumentation) {
        StartUpTransformer transformer = new StartUpTransformer();
        ADVISED_METHODS.mayDeclare(new byte[0]); // loaded before registering: the transformer never waits on itself
        instrumentation.addTransformer(transformer, false);
        Thread warmUp = new Thread(() -> InstrumentationWarmUp.run(transformer), "idempotency-agent-warm-up");
        warmUp.setDaemon(true);
        warmUp.setContextClassLoader(transformer.agentLoader);
        warmUp.start();
        return transformer;
    }

    /** Whether the class may need advice: false for nearly every class a server loads. */
    static boolean mayNeed(String internalName, byte[] classFile) {
        return RESOURCE_CONFIG.equals(internalName) || ADVISED_METHODS.mayDeclare(classFile);
    }

    @Override
    public byte[] transform(ClassLoader loader, String internalName, Class<?> redefined, ProtectionDomain domain, byte[] classFile) {
        // the bootstrap loader holds no servlets; the agent's own loader holds none either
        if (loader == null || loader == agentLoader || internalName == null || classFile == null || !mayNeed(internalName, classFile)) {
            return null;
        }
        // a redefinition may not add methods: only a class woven when it was defined is woven again
        if (redefined != null && !wasWoven(redefined)) return null;
        try {
            return weave(loader, internalName, classFile);
        } catch (Throwable t) {
            if (!internalName.startsWith(InstrumentationWarmUp.PACKAGE.replace('.', '/'))) {
                AgentLog.warn("could not instrument " + internalName.replace('/', '.') + "; its requests are not protected", t);
            }
            return null;
        }
    }

    /** The class file with the agent's calls, or null when the class is no servlet, filter or JAX-RS application. */
    static byte[] weave(ClassLoader loader, String internalName, byte[] classFile) {
        if (IgnoredTypes.byName(internalName.replace('/', '.'))) return null;
        ClassReader reader = new ClassReader(classFile);
        if ((reader.getAccess() & (Opcodes.ACC_INTERFACE | Opcodes.ACC_SYNTHETIC)) != 0) return null;
        EntryWeaver.AdvisedKinds kinds = kindsOf(loader, internalName, reader);
        if (!kinds.any()) return null;
        ClassWriter writer = new ClassWriter(reader, 0);
        EntryWeaver weaver = new EntryWeaver(writer, kinds);
        reader.accept(weaver, 0);
        if (!weaver.wove()) return null;
        AgentLog.debug("instrumented " + internalName.replace('/', '.'));
        return writer.toByteArray();
    }

    private static EntryWeaver.AdvisedKinds kindsOf(ClassLoader loader, String internalName, ClassReader reader) {
        boolean resourceConfig = RESOURCE_CONFIG.equals(internalName);
        Set<String> supers = SuperTypeWalk.reachable(loader, reader, ANY_COMPONENT);
        return new EntryWeaver.AdvisedKinds(any(supers, SERVLETS), any(supers, FILTERS),
                any(supers, APPLICATIONS) && !internalName.startsWith(JERSEY), resourceConfig);
    }

    private static boolean wasWoven(Class<?> type) {
        try {
            for (Method method : type.getDeclaredMethods()) if (method.getName().endsWith(EntryWeaver.ORIGINAL_SUFFIX)) return true;
            // a ResourceConfig keeps no trace of its constructors' calls: it was woven if it is the one woven by name
            return RESOURCE_CONFIG.equals(type.getName().replace('.', '/'));
        } catch (Throwable t) {
            return false;
        }
    }

    private static boolean any(Set<String> found, Set<String> of) {
        for (String name : of) if (found.contains(name)) return true;
        return false;
    }

    private static Set<String> names(String... names) {
        return new HashSet<>(Arrays.asList(names));
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new HashSet<>();
        for (Set<String> set : sets) all.addAll(set);
        return all;
    }
}

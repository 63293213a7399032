package dev.idempotency.agent.core.instrument.startup;

import dev.idempotency.agent.core.instrument.AdvisedMethods;
import dev.idempotency.agent.core.jaxrs.JaxrsEdges;
import dev.idempotency.agent.core.instrument.ClassFileText;
import dev.idempotency.agent.core.instrument.DeclaredMethods;
import dev.idempotency.agent.core.instrument.IgnoredTypes;
import dev.idempotency.agent.core.instrument.LoaderSees;
import dev.idempotency.agent.core.instrument.SuperTypeWalk;
import dev.idempotency.agent.core.log.AgentLog;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Opcodes;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.nio.charset.StandardCharsets;
import java.security.ProtectionDomain;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * The transformer the premain registers, before the host's main runs, so that no class escapes. It needs neither Byte
 * Buddy nor a set-up: a class that declares no method the agent advises (nearly every class a server loads) passes
 * after one walk of its constant pool; the few that do have their super types read from class files, and the servlets,
 * filters and JAX-RS applications among them are woven by {@link EntryWeaver}, on the thread that loads them. Byte
 * Buddy's thousand classes are loaded only by an attach to a running JVM.
 */
public final class StartUpTransformer implements ClassFileTransformer {
    private static final DeclaredMethods ADVISED_METHODS = AdvisedMethods.inClassFiles();
    private static final String RESOURCE_CONFIG = JaxrsEdges.JERSEY_RESOURCE_CONFIG.replace('.', '/');
    private static final Set<String> SERVLETS = names("javax/servlet/Servlet", "jakarta/servlet/Servlet");
    private static final Set<String> FILTERS = names("javax/servlet/Filter", "jakarta/servlet/Filter");
    private static final Set<String> APPLICATIONS = names("javax/ws/rs/core/Application", "jakarta/ws/rs/core/Application");
    private static final Set<String> ANY_COMPONENT = union(SERVLETS, FILTERS, APPLICATIONS);
    /** Jersey's own applications gather the application's classes through its getClasses(): advised there. */
    private static final String JERSEY = "org/glassfish/jersey/";

    private static final byte[] WOVEN_MARK = EntryWeaver.ORIGINAL_SUFFIX.getBytes(StandardCharsets.US_ASCII);

    private final ClassLoader agentLoader = StartUpTransformer.class.getClassLoader();
    /** Per loader, the classes woven when they were defined: only those are woven again when redefined. */
    private final Map<ClassLoader, Set<String>> woven = new WeakHashMap<>();
    /**
     * Woven code calls the bridge, which the premain put on the bootstrap class path; a loader that does not delegate
     * to it (OSGi without boot delegation of the bridge's package) gets its classes as they are, and a warning.
     */
    private static final LoaderSees SEES_BRIDGE = new LoaderSees(loader -> AgentLog.warn("the class loader " + loader
            + " cannot see the agent's bridge (package dev.idempotency.agent.bootstrap.bridge on the bootstrap class path): its"
            + " servlets, filters and JAX-RS applications are NOT protected; on OSGi add the package to"
            + " org.osgi.framework.bootdelegation"), "dev/idempotency/agent/bootstrap/bridge/ServletBridge.class");

    StartUpTransformer() {
    }

    /** Registers the transformer, then loads what weaving needs on an agent thread, beside the host's start-up. */
    public static StartUpTransformer register(Instrumentation instrumentation) {
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
        if (loader == null || loader == agentLoader || internalName == null || classFile == null) return null;
        // a change of one method's code, which a redefinition may carry too: another agent's redefinition keeps it
        if (OsgiBootDelegation.decidesBootDelegation(internalName)) return OsgiBootDelegation.weave(internalName, classFile);
        if (!mayNeed(internalName, classFile)) return null;
        // a redefinition may not add methods: only a class woven when it was defined is woven again
        if (redefined != null && !wasWoven(loader, internalName)) return null;
        try {
            byte[] result = weave(loader, internalName, classFile);
            if (result != null) recordWoven(loader, internalName);
            return result;
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
        // woven already (another agent hands our own output back in a redefinition): once is enough
        if (ClassFileText.contains(classFile, WOVEN_MARK)) return null;
        ClassReader reader = new ClassReader(classFile);
        if ((reader.getAccess() & (Opcodes.ACC_INTERFACE | Opcodes.ACC_SYNTHETIC)) != 0) return null;
        EntryWeaver.AdvisedKinds kinds = kindsOf(loader, internalName, reader);
        if (!kinds.any() || !SEES_BRIDGE.matches(loader)) return null;
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

    private void recordWoven(ClassLoader loader, String internalName) {
        synchronized (woven) {
            Set<String> names = woven.get(loader);
            if (names == null) woven.put(loader, names = new HashSet<>());
            names.add(internalName);
        }
    }

    private boolean wasWoven(ClassLoader loader, String internalName) {
        synchronized (woven) {
            Set<String> names = woven.get(loader);
            return names != null && names.contains(internalName);
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

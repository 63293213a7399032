package dev.idempotency.agent.core.instrument.startup;

import dev.idempotency.agent.core.instrument.AdvisedMethods;
import dev.idempotency.agent.core.log.AgentLog;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.instrument.ClassFileTransformer;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs the start-up transformer once over a made-up servlet and filter, on an agent thread beside the host's start-up:
 * the first real servlet of the host then does not pay, on the host's main thread, for loading and first running the
 * class-file reader and writer. The made-up classes exist only as bytes served by a throwaway loader; nothing is
 * defined.
 */
final class InstrumentationWarmUp {
    /** The made-up classes' package: nothing the host loads. */
    static final String PACKAGE = "dev.idempotency.warmup.";
    private static final String SERVLET = PACKAGE.replace('.', '/') + "WarmUpServlet";
    private static final String FILTER = PACKAGE.replace('.', '/') + "WarmUpFilter";
    private static final String BRIDGE_PACKAGE = "dev/idempotency/agent/bootstrap/bridge/";

    private InstrumentationWarmUp() {
    }

    /** Returns how many of the made-up classes were woven (both, unless something is wrong). */
    static int run(ClassFileTransformer transformer) {
        MadeUpClasses loader = new MadeUpClasses();
        int woven = 0;
        try {
            for (String type : new String[] {SERVLET, FILTER}) {
                if (transformer.transform(loader, type, null, null, loader.bytes(type)) == null) {
                    AgentLog.debug("the start-up warm-up did not transform " + type);
                } else {
                    woven++;
                }
            }
        } catch (Throwable t) { // only time is lost: the first real servlet warms up instead
            AgentLog.debug("the start-up warm-up failed: " + t);
        }
        return woven;
    }

    /** A servlet API of empty interfaces, a servlet and a filter implementing it, as class files and nothing more. */
    private static final class MadeUpClasses extends ClassLoader {
        private final Map<String, byte[]> classFiles = new HashMap<>();

        MadeUpClasses() {
            super(null);
            for (String api : new String[] {"javax/servlet/Servlet", "javax/servlet/Filter", "javax/servlet/FilterChain",
                "javax/servlet/ServletRequest", "javax/servlet/ServletResponse"}) {
                classFiles.put(api, type(api, Opcodes.ACC_PUBLIC | Opcodes.ACC_INTERFACE | Opcodes.ACC_ABSTRACT, null, null, null));
            }
            classFiles.put("javax/servlet/http/HttpServlet", type("javax/servlet/http/HttpServlet", Opcodes.ACC_PUBLIC, null, null, null));
            classFiles.put(SERVLET, type(SERVLET, Opcodes.ACC_PUBLIC, "javax/servlet/Servlet", AdvisedMethods.SERVICE,
                    "(Ljavax/servlet/ServletRequest;Ljavax/servlet/ServletResponse;)V"));
            classFiles.put(FILTER, type(FILTER, Opcodes.ACC_PUBLIC, "javax/servlet/Filter", AdvisedMethods.DO_FILTER,
                    "(Ljavax/servlet/ServletRequest;Ljavax/servlet/ServletResponse;Ljavax/servlet/FilterChain;)V"));
        }

        byte[] bytes(String type) {
            return classFiles.get(type);
        }

        private static byte[] type(String name, int access, String implemented, String method, String descriptor) {
            ClassWriter writer = new ClassWriter(0);
            writer.visit(Opcodes.V1_8, access, name, null, "java/lang/Object", implemented == null ? null : new String[] {implemented});
            if (method != null) {
                MethodVisitor body = writer.visitMethod(Opcodes.ACC_PUBLIC, method, descriptor, null, null);
                body.visitCode();
                body.visitInsn(Opcodes.RETURN);
                body.visitMaxs(0, descriptor.split(";").length + 1);
                body.visitEnd();
            }
            writer.visitEnd();
            return writer.toByteArray();
        }

        @Override
        public InputStream getResourceAsStream(String name) {
            byte[] bytes = name.endsWith(".class") ? classFiles.get(name.substring(0, name.length() - ".class".length())) : null;
            return bytes == null ? super.getResourceAsStream(name) : new ByteArrayInputStream(bytes);
        }

        @Override
        public URL getResource(String name) {
            // only asked whether a type or the bridge is there, never read: the bridge is, on the bootstrap class path
            // the premain extended (which resource lookups through a loader without parent do not search)
            boolean there = name.startsWith(BRIDGE_PACKAGE)
                    || name.endsWith(".class") && classFiles.containsKey(name.substring(0, name.length() - ".class".length()));
            return there ? InstrumentationWarmUp.class.getResource("InstrumentationWarmUp.class") : super.getResource(name);
        }
    }
}

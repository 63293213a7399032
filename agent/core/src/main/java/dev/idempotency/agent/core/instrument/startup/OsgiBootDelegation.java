package dev.idempotency.agent.core.instrument.startup;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;

import dev.idempotency.agent.core.log.AgentLog;

import java.util.HashMap;
import java.util.Map;

/**
 * An OSGi framework gives a bundle only the packages it imports and those its boot delegation names. The servlet API
 * bundle of Payara (Felix) and Open Liberty (Equinox) holds the woven {@code HttpServlet}, whose code calls the bridge
 * on the bootstrap class path, so the framework's boot delegation test is made to answer yes for the bridge's package,
 * as an operator's {@code org.osgi.framework.bootdelegation} entry would. Every other package is decided as before.
 */
final class OsgiBootDelegation {
    /** The only package the woven servlet code calls on the bootstrap class path. */
    static final String BRIDGE_PACKAGE = "dev.idempotency.agent.bootstrap.bridge";
    private static final String TEST_DESCRIPTOR = "(Ljava/lang/String;)Z";
    /** Per framework class, its instance method that says whether a package (dotted name) is boot delegated. */
    private static final Map<String, String> BOOT_DELEGATION_TESTS = new HashMap<>();

    static {
        BOOT_DELEGATION_TESTS.put("org/apache/felix/framework/BundleWiringImpl", "shouldBootDelegate");
        BOOT_DELEGATION_TESTS.put("org/eclipse/osgi/internal/framework/EquinoxContainer", "isBootDelegationPackage");
    }

    private OsgiBootDelegation() {
    }

    static boolean decidesBootDelegation(String internalName) {
        return BOOT_DELEGATION_TESTS.containsKey(internalName);
    }

    /** The framework class whose test also passes the bridge's package, or null when it has no such method. */
    static byte[] weave(String internalName, byte[] classFile) {
        String test = BOOT_DELEGATION_TESTS.get(internalName);
        ClassWriter writer;
        TestWeaver weaver;
        try {
            ClassReader reader = new ClassReader(classFile);
            writer = new ClassWriter(reader, 0);
            weaver = new TestWeaver(writer, test);
            reader.accept(weaver, 0);
        } catch (RuntimeException e) {
            AgentLog.warn("could not instrument " + internalName.replace('/', '.')
                    + ": this OSGi framework's bundles may not see the agent's bridge", e);
            return null;
        }
        if (!weaver.wove) {
            AgentLog.warn(internalName.replace('/', '.') + " has no " + test
                    + "(String): this OSGi framework's bundles may not see the agent's bridge");
            return null;
        }
        AgentLog.debug("instrumented " + internalName.replace('/', '.')
                + ": boot delegation of " + BRIDGE_PACKAGE);
        return writer.toByteArray();
    }

    private static final class TestWeaver extends ClassVisitor {
        private final String test;
        private int version;
        boolean wove;

        TestWeaver(ClassVisitor next, String test) {
            super(Opcodes.ASM9, next);
            this.test = test;
        }

        @Override
        public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
            this.version = version;
            super.visit(version, access, name, signature, superName, interfaces);
        }

        @Override
        public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor method = super.visitMethod(access, name, descriptor, signature, exceptions);
            if (!name.equals(test) || !descriptor.equals(TEST_DESCRIPTOR)
                    || (access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE)) != 0) {
                return method;
            }
            wove = true;
            return new MethodVisitor(Opcodes.ASM9, method) {
                /** if (BRIDGE_PACKAGE.equals(pkg)) return true; then the framework's own test */
                @Override
                public void visitCode() {
                    super.visitCode();
                    Label own = new Label();
                    super.visitLdcInsn(BRIDGE_PACKAGE);
                    super.visitVarInsn(Opcodes.ALOAD, 1);
                    super.visitMethodInsn(Opcodes.INVOKEVIRTUAL, "java/lang/String", "equals", "(Ljava/lang/Object;)Z", false);
                    super.visitJumpInsn(Opcodes.IFEQ, own);
                    super.visitInsn(Opcodes.ICONST_1);
                    super.visitInsn(Opcodes.IRETURN);
                    super.visitLabel(own);
                    if ((version & 0xFFFF) >= Opcodes.V1_6) super.visitFrame(Opcodes.F_SAME, 0, null, 0, null);
                }

                @Override
                public void visitMaxs(int maxStack, int maxLocals) {
                    super.visitMaxs(Math.max(maxStack, 2), maxLocals);
                }
            };
        }
    }
}

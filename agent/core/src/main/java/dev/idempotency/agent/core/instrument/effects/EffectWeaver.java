package dev.idempotency.agent.core.instrument.effects;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * Puts a call to {@code EffectBridge} at the start of the hooked methods of one class (and, for {@code prepareStatement},
 * before each return). Nothing is added but calls (and, for the JDK's HttpClient, the store of the returned request
 * into its own argument): no method, no field, no branch, so no stack map frame changes, and a class already loaded
 * can be retransformed the same way.
 */
public final class EffectWeaver extends ClassVisitor {
    static final String BRIDGE = "dev/idempotency/agent/bootstrap/bridge/EffectBridge";
    private static final String OBJECT = "(Ljava/lang/Object;)V";
    private static final String EXECUTE = "(Ljava/lang/Object;Ljava/lang/String;)V";

    private final EffectHooks.Role role;
    private boolean wove;

    private EffectWeaver(ClassVisitor next, EffectHooks.Role role) {
        super(Opcodes.ASM9, next);
        this.role = role;
    }

    /** The class file with its hooks, or null when no method of it is hooked. */
    public static byte[] weave(byte[] classFile, EffectHooks.Role role) {
        ClassReader reader = new ClassReader(classFile);
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        EffectWeaver weaver = new EffectWeaver(writer, role);
        reader.accept(weaver, 0);
        return weaver.wove ? writer.toByteArray() : null;
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        MethodVisitor next = super.visitMethod(access, name, descriptor, signature, exceptions);
        if ((access & (Opcodes.ACC_STATIC | Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_SYNTHETIC | Opcodes.ACC_BRIDGE)) != 0) {
            return next;
        }
        Hook hook = hookFor(name, descriptor);
        if (hook == null) return next;
        wove = true;
        return new HookedMethod(next, hook, descriptor);
    }

    /** What a method of this role gets; null for a method that gets nothing. */
    private Hook hookFor(String name, String descriptor) {
        boolean noArguments = descriptor.startsWith("()");
        boolean sqlFirst = descriptor.startsWith("(Ljava/lang/String;");
        switch (role) {
            case CONNECTION:
                if ("commit".equals(name) && "()V".equals(descriptor)) return Hook.COMMIT;
                if ("setAutoCommit".equals(name) && "(Z)V".equals(descriptor)) return Hook.SET_AUTO_COMMIT;
                if ("rollback".equals(name) && "()V".equals(descriptor)) return Hook.ROLLBACK;
                if (("prepareStatement".equals(name) || "prepareCall".equals(name)) && sqlFirst
                        && Type.getReturnType(descriptor).getSort() == Type.OBJECT) {
                    return Hook.PREPARED;
                }
                return null;
            case STATEMENT:
                if ("execute".equals(name) || "executeQuery".equals(name) || "executeUpdate".equals(name) || "executeLargeUpdate".equals(name)) {
                    return sqlFirst ? Hook.EXECUTE_SQL : noArguments ? Hook.EXECUTE_PREPARED : null;
                }
                if (("executeBatch".equals(name) || "executeLargeBatch".equals(name)) && noArguments) return Hook.EXECUTE_PREPARED;
                return null;
            case XA_RESOURCE:
                return "start".equals(name) && "(Ljavax/transaction/xa/Xid;I)V".equals(descriptor) ? Hook.XA_START : null;
            case JDK_URL_CONNECTION:
                return ("connect".equals(name) && "()V".equals(descriptor))
                        || ("getOutputStream".equals(name) && "()Ljava/io/OutputStream;".equals(descriptor))
                        || ("getInputStream".equals(name) && "()Ljava/io/InputStream;".equals(descriptor)) ? Hook.OUTBOUND_THIS : null;
            case JDK_HTTP_CLIENT:
                return ("send".equals(name) || "sendAsync".equals(name)) && descriptor.startsWith("(Ljava/net/http/HttpRequest;")
                        ? Hook.OUTBOUND_FIRST_ARGUMENT : null;
            case APACHE_HTTP_CLIENT:
                return "doExecute".equals(name) && Type.getArgumentTypes(descriptor).length == 3 ? Hook.OUTBOUND_SECOND_ARGUMENT : null;
            case JMS_PRODUCER:
                return "send".equals(name) && (descriptor.startsWith("(Ljavax/jms/") || descriptor.startsWith("(Ljakarta/jms/"))
                        ? Hook.OUTBOUND_JMS : null;
            case OKHTTP_CALL:
                return ("execute".equals(name) && noArguments) || ("enqueue".equals(name) && Type.getArgumentTypes(descriptor).length == 1)
                        ? Hook.OUTBOUND_THIS : null;
            default:
                return null;
        }
    }

    private enum Hook { COMMIT, SET_AUTO_COMMIT, ROLLBACK, PREPARED, EXECUTE_SQL, EXECUTE_PREPARED, XA_START, OUTBOUND_THIS,
        OUTBOUND_FIRST_ARGUMENT, OUTBOUND_SECOND_ARGUMENT, OUTBOUND_JMS }

    private static final class HookedMethod extends MethodVisitor {
        private final Hook hook;
        private final String returnType;
        private final String firstArgumentType;

        HookedMethod(MethodVisitor next, Hook hook, String descriptor) {
            super(Opcodes.ASM9, next);
            this.hook = hook;
            this.returnType = Type.getReturnType(descriptor).getInternalName();
            Type[] arguments = Type.getArgumentTypes(descriptor);
            this.firstArgumentType = arguments.length > 0 && arguments[0].getSort() == Type.OBJECT ? arguments[0].getInternalName() : null;
        }

        @Override
        public void visitCode() {
            super.visitCode();
            switch (hook) {
                case COMMIT:
                    call("beforeCommit", OBJECT, Opcodes.ALOAD, 0);
                    break;
                case SET_AUTO_COMMIT:
                    call("beforeSetAutoCommit", "(Ljava/lang/Object;Z)V", Opcodes.ALOAD, 0, Opcodes.ILOAD, 1);
                    break;
                case ROLLBACK:
                    call("beforeRollback", OBJECT, Opcodes.ALOAD, 0);
                    break;
                case EXECUTE_SQL:
                    call("beforeExecute", EXECUTE, Opcodes.ALOAD, 0, Opcodes.ALOAD, 1);
                    break;
                case EXECUTE_PREPARED:
                    super.visitVarInsn(Opcodes.ALOAD, 0);
                    super.visitInsn(Opcodes.ACONST_NULL);
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "beforeExecute", EXECUTE, false);
                    break;
                case XA_START:
                    call("xaStarted", OBJECT, Opcodes.ALOAD, 0);
                    break;
                case OUTBOUND_THIS:
                    httpCall(0, null);
                    break;
                case OUTBOUND_FIRST_ARGUMENT:
                    httpCall(1, firstArgumentType); // the JDK's HttpRequest cannot change: a rebuilt one replaces it
                    break;
                case OUTBOUND_SECOND_ARGUMENT:
                    httpCall(2, null);
                    break;
                case OUTBOUND_JMS:
                    outbound("jms", 0);
                    break;
                default:
                    break; // PREPARED is called on return
            }
        }

        /** Loads the given locals (pairs of load opcode and slot) and calls the bridge. */
        private void call(String method, String descriptor, int... loads) {
            for (int i = 0; i < loads.length; i += 2) super.visitVarInsn(loads[i], loads[i + 1]);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, method, descriptor, false);
        }

        /** The bridge sees the call; with {@code replacedType}, what it returns replaces the local (an argument). */
        private void httpCall(int local, String replacedType) {
            super.visitVarInsn(Opcodes.ALOAD, local);
            super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "beforeHttpCall", "(Ljava/lang/Object;)Ljava/lang/Object;", false);
            if (replacedType == null) {
                super.visitInsn(Opcodes.POP);
            } else {
                super.visitTypeInsn(Opcodes.CHECKCAST, replacedType);
                super.visitVarInsn(Opcodes.ASTORE, local);
            }
        }

        private void outbound(String kind, int local) {
            super.visitLdcInsn(kind);
            call("beforeOutbound", "(Ljava/lang/String;Ljava/lang/Object;)V", Opcodes.ALOAD, local);
        }

        @Override
        public void visitInsn(int opcode) {
            if (hook == Hook.PREPARED && opcode == Opcodes.ARETURN) {
                // the statement on the stack goes through the bridge and comes back as itself
                super.visitVarInsn(Opcodes.ALOAD, 1);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, BRIDGE, "prepared", "(Ljava/lang/Object;Ljava/lang/String;)Ljava/lang/Object;", false);
                super.visitTypeInsn(Opcodes.CHECKCAST, returnType);
            }
            super.visitInsn(opcode);
        }
    }
}

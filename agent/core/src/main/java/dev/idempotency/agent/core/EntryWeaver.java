package dev.idempotency.agent.core;

import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

import java.util.ArrayList;
import java.util.List;

/**
 * Gives a class that is being loaded the agent's calls, with plain ASM (the few dozen classes Byte Buddy ships it as,
 * not the thousand of Byte Buddy itself): each advised entry method is renamed to a private synthetic method and a
 * method of the original name, access and signature calls the bridge around it. The original bodies are copied as they
 * are and the new methods' stack map frames are written here, so nothing needs the class hierarchy (computing frames
 * would load classes from inside the class loader that is defining this one). Jersey's {@code ResourceConfig}
 * constructors get a bridge call before each return instead, constructors having no name to move.
 *
 * <p>Adding methods is allowed only while a class is defined for the first time: this serves the start-up transformer;
 * an attach to a running JVM retransforms with Byte Buddy's inlined advice ({@link Instrumentations}).
 */
final class EntryWeaver extends ClassVisitor {
    /** Appended to an advised method's name to name the original body. */
    static final String ORIGINAL_SUFFIX = "$idempotencyOriginal";

    private static final String SERVLET_BRIDGE = "dev/idempotency/agent/bootstrap/bridge/ServletBridge";
    private static final String JAXRS_BRIDGE = "dev/idempotency/agent/bootstrap/bridge/JaxrsBridge";
    private static final String EXCHANGE = "dev/idempotency/agent/bootstrap/bridge/ServletExchange";
    private static final String EXCHANGE_DESCRIPTOR = 'L' + EXCHANGE + ';';
    private static final String OBJECT = "java/lang/Object";
    private static final String THROWABLE = "java/lang/Throwable";
    static final String SET_OF_CLASSES = "()Ljava/util/Set;";

    private final AdvisedKinds kinds;
    private final List<Wrapped> wrapped = new ArrayList<>();
    private String owner;
    private boolean frames;

    /** What to weave into one class: the kinds of component it is. */
    static final class AdvisedKinds {
        final boolean servlet;
        final boolean filter;
        final boolean application;
        final boolean resourceConfig;

        AdvisedKinds(boolean servlet, boolean filter, boolean application, boolean resourceConfig) {
            this.servlet = servlet;
            this.filter = filter;
            this.application = application;
            this.resourceConfig = resourceConfig;
        }

        boolean any() {
            return servlet || filter || application || resourceConfig;
        }
    }

    private static final class Wrapped {
        final int access;
        final String name;
        final String descriptor;
        final String signature;
        final String[] exceptions;

        Wrapped(int access, String name, String descriptor, String signature, String[] exceptions) {
            this.access = access;
            this.name = name;
            this.descriptor = descriptor;
            this.signature = signature;
            this.exceptions = exceptions;
        }
    }

    EntryWeaver(ClassVisitor next, AdvisedKinds kinds) {
        super(Opcodes.ASM9, next);
        this.kinds = kinds;
    }

    /** Whether any method was woven; a class with none is left as it was loaded. */
    boolean wove() {
        return !wrapped.isEmpty();
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
        owner = name;
        frames = (version & 0xFFFF) >= Opcodes.V1_6; // older class files are verified by type inference, without frames
        super.visit(version, access, name, signature, superName, interfaces);
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
        if (kinds.resourceConfig && "<init>".equals(name)) {
            wrapped.add(null); // counts as woven
            return new ReturnsCallBridge(super.visitMethod(access, name, descriptor, signature, exceptions));
        }
        if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_STATIC)) != 0 || !isAdvised(name, descriptor)) {
            return super.visitMethod(access, name, descriptor, signature, exceptions);
        }
        wrapped.add(new Wrapped(access, name, descriptor, signature, exceptions));
        int hidden = (access & ~(Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED)) | Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC;
        return super.visitMethod(hidden, name + ORIGINAL_SUFFIX, descriptor, signature, exceptions);
    }

    private boolean isAdvised(String name, String descriptor) {
        if (kinds.servlet && AdvisedMethods.SERVICE.equals(name)) return AdvisedMethods.isServiceDescriptor(descriptor);
        if (kinds.filter && AdvisedMethods.DO_FILTER.equals(name)) return AdvisedMethods.isDoFilterDescriptor(descriptor);
        return kinds.application && AdvisedMethods.GET_CLASSES.equals(name) && SET_OF_CLASSES.equals(descriptor);
    }

    @Override
    public void visitEnd() {
        for (Wrapped method : wrapped) {
            if (method == null) continue;
            MethodVisitor body = super.visitMethod(method.access, method.name, method.descriptor, method.signature, method.exceptions);
            if (AdvisedMethods.GET_CLASSES.equals(method.name)) classesWithAgentFilter(body, method);
            else entryAroundOriginal(body, method);
        }
        super.visitEnd();
    }

    /**
     * {@code service(request, response)} or {@code doFilter(request, response, chain)}:
     * <pre>
     * exchange = ServletBridge.enter(this, name, request, response);
     * if (exchange != null) {
     *     if (ServletBridge.answered(exchange)) { ServletBridge.exit(exchange, request, null); return; }
     *     request = (Request) ServletBridge.request(exchange, request);
     *     response = (Response) ServletBridge.response(exchange, response);
     * }
     * try { this.name$original(request, response[, chain]); }
     * catch (Throwable t) { if (exchange != null) ServletBridge.exit(exchange, request, t); throw t; }
     * if (exchange != null) ServletBridge.exit(exchange, request, null);
     * </pre>
     * A request the agent leaves alone costs the bridge call and a null check.
     */
    private void entryAroundOriginal(MethodVisitor m, Wrapped method) {
        Type[] parameters = Type.getArgumentTypes(method.descriptor);
        int exchange = parameters.length + 1;
        int thrown = exchange + 1;
        Object[] locals = new Object[parameters.length + 2];
        locals[0] = owner;
        for (int i = 0; i < parameters.length; i++) locals[i + 1] = parameters[i].getInternalName();
        locals[exchange] = EXCHANGE;
        Object[] localsWithThrown = new Object[locals.length + 1];
        System.arraycopy(locals, 0, localsWithThrown, 0, locals.length);
        localsWithThrown[thrown] = THROWABLE;

        Label proceed = new Label();
        Label call = new Label();
        Label tryStart = new Label();
        Label tryEnd = new Label();
        Label handler = new Label();
        Label done = new Label();
        Label rethrow = new Label();
        m.visitCode();
        m.visitTryCatchBlock(tryStart, tryEnd, handler, THROWABLE);
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitLdcInsn(method.name);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitVarInsn(Opcodes.ALOAD, 2);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, "enter",
                "(Ljava/lang/Object;Ljava/lang/String;Ljava/lang/Object;Ljava/lang/Object;)" + EXCHANGE_DESCRIPTOR, false);
        m.visitVarInsn(Opcodes.ASTORE, exchange);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitJumpInsn(Opcodes.IFNULL, call);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, "answered", "(" + EXCHANGE_DESCRIPTOR + ")Z", false);
        m.visitJumpInsn(Opcodes.IFEQ, proceed);
        exit(m, exchange, -1);
        m.visitInsn(Opcodes.RETURN);

        frame(m, proceed, locals);
        for (int argument = 1; argument <= 2; argument++) {
            m.visitVarInsn(Opcodes.ALOAD, exchange);
            m.visitVarInsn(Opcodes.ALOAD, argument);
            m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, argument == 1 ? "request" : "response",
                    "(" + EXCHANGE_DESCRIPTOR + "Ljava/lang/Object;)Ljava/lang/Object;", false);
            m.visitTypeInsn(Opcodes.CHECKCAST, parameters[argument - 1].getInternalName());
            m.visitVarInsn(Opcodes.ASTORE, argument);
        }

        frame(m, call, locals);
        m.visitLabel(tryStart);
        m.visitVarInsn(Opcodes.ALOAD, 0);
        for (int i = 1; i <= parameters.length; i++) m.visitVarInsn(Opcodes.ALOAD, i);
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, method.name + ORIGINAL_SUFFIX, method.descriptor, false);
        m.visitLabel(tryEnd);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitJumpInsn(Opcodes.IFNULL, done);
        exit(m, exchange, -1);
        frame(m, done, locals);
        m.visitInsn(Opcodes.RETURN);

        m.visitLabel(handler);
        if (frames) m.visitFrame(Opcodes.F_FULL, locals.length, locals, 1, new Object[] {THROWABLE});
        m.visitVarInsn(Opcodes.ASTORE, thrown);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitJumpInsn(Opcodes.IFNULL, rethrow);
        exit(m, exchange, thrown);
        frame(m, rethrow, localsWithThrown);
        m.visitVarInsn(Opcodes.ALOAD, thrown);
        m.visitInsn(Opcodes.ATHROW);
        m.visitMaxs(Math.max(4, parameters.length + 1), thrown + 1);
        m.visitEnd();
    }

    /** {@code ServletBridge.exit(exchange, request, thrown)}; no thrown slot: null. */
    private static void exit(MethodVisitor m, int exchange, int thrown) {
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        if (thrown < 0) m.visitInsn(Opcodes.ACONST_NULL);
        else m.visitVarInsn(Opcodes.ALOAD, thrown);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, "exit",
                "(" + EXCHANGE_DESCRIPTOR + "Ljava/lang/Object;Ljava/lang/Throwable;)V", false);
    }

    private void frame(MethodVisitor m, Label label, Object[] locals) {
        m.visitLabel(label);
        if (frames) m.visitFrame(Opcodes.F_FULL, locals.length, locals, 0, new Object[0]);
    }

    /** {@code getClasses()}: {@code return (Set) JaxrsBridge.withAgentFilter(this, this.getClasses$original());} */
    private void classesWithAgentFilter(MethodVisitor m, Wrapped method) {
        m.visitCode();
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, method.name + ORIGINAL_SUFFIX, method.descriptor, false);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, JAXRS_BRIDGE, "withAgentFilter", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", false);
        m.visitTypeInsn(Opcodes.CHECKCAST, "java/util/Set");
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(2, 1);
        m.visitEnd();
    }

    /** A constructor that registers the agent's filter into the object it has just built, before each return. */
    private static final class ReturnsCallBridge extends MethodVisitor {
        ReturnsCallBridge(MethodVisitor next) {
            super(Opcodes.ASM9, next);
        }

        @Override
        public void visitInsn(int opcode) {
            if (opcode == Opcodes.RETURN) {
                super.visitVarInsn(Opcodes.ALOAD, 0);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, JAXRS_BRIDGE, "registerAgentFilter", "(L" + OBJECT + ";)V", false);
            }
            super.visitInsn(opcode);
        }

        @Override
        public void visitMaxs(int maxStack, int maxLocals) {
            super.visitMaxs(maxStack + 1, maxLocals);
        }
    }
}

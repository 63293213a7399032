package dev.idempotency.agent.core.instrument.startup;

import dev.idempotency.agent.core.instrument.AdvisedMethods;
import net.bytebuddy.jar.asm.AnnotationVisitor;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.Label;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.jar.asm.TypePath;

import java.util.Arrays;

/**
 * Gives a class that is being loaded the agent's calls, with plain ASM (the few dozen classes Byte Buddy ships it as,
 * not the thousand of Byte Buddy itself): each advised entry method is renamed to a private synthetic method and a
 * method of the original name, access, signature, exceptions and annotations calls the bridge around it, suppressing
 * every fault of the agent's own as Byte Buddy's advice did. The original bodies keep their instructions and frames,
 * and the new methods' stack map frames are written here, so nothing needs the class hierarchy (computing frames
 * would load classes from inside the class loader that is defining this one). Jersey's {@code ResourceConfig}
 * constructors get a bridge call before each return instead, constructors having no name to move.
 *
 * <p>Adding methods is allowed only while a class is defined for the first time: this serves the start-up transformer;
 * an attach to a running JVM retransforms with Byte Buddy's inlined advice ({@link dev.idempotency.agent.core.instrument.attach.Instrumentations}). Visible
 * differences: a stack trace through the method shows the renamed body below it, and the method of the original name
 * has no line numbers.
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

    private final AdvisedKinds kinds;
    private boolean wove;
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

    EntryWeaver(ClassVisitor next, AdvisedKinds kinds) {
        super(Opcodes.ASM9, next);
        this.kinds = kinds;
    }

    /** Whether any method was woven; a class with none is left as it was loaded. */
    boolean wove() {
        return wove;
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
            wove = true;
            return new ReturnsCallBridge(super.visitMethod(access, name, descriptor, signature, exceptions));
        }
        if ((access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_STATIC)) != 0 || !isAdvised(name, descriptor)) {
            return super.visitMethod(access, name, descriptor, signature, exceptions);
        }
        wove = true;
        // The method of the original name comes first and takes the original's annotations (frameworks and other agents
        // look for them on the method they call); its code is written once the original body has been copied.
        MethodVisitor wrapper = super.visitMethod(access, name, descriptor, signature, exceptions);
        int hidden = (access & ~(Opcodes.ACC_PUBLIC | Opcodes.ACC_PROTECTED | Opcodes.ACC_BRIDGE | Opcodes.ACC_VARARGS))
                | Opcodes.ACC_PRIVATE | Opcodes.ACC_SYNTHETIC;
        MethodVisitor original = super.visitMethod(hidden, name + ORIGINAL_SUFFIX, descriptor, signature, exceptions);
        return new OriginalBody(original, wrapper, name, descriptor);
    }

    private boolean isAdvised(String name, String descriptor) {
        if (kinds.servlet && AdvisedMethods.SERVICE.equals(name)) return AdvisedMethods.isServiceDescriptor(descriptor);
        if (kinds.filter && AdvisedMethods.DO_FILTER.equals(name)) return AdvisedMethods.isDoFilterDescriptor(descriptor);
        return kinds.application && AdvisedMethods.GET_CLASSES.equals(name) && descriptor.startsWith("()L");
    }

    /**
     * The original body, copied under its new name; its annotations, parameter annotations and type annotations go to
     * the method of the original name instead, whose code is written when the copy ends.
     */
    private final class OriginalBody extends MethodVisitor {
        private final MethodVisitor wrapper;
        private final String name;
        private final String descriptor;

        OriginalBody(MethodVisitor original, MethodVisitor wrapper, String name, String descriptor) {
            super(Opcodes.ASM9, original);
            this.wrapper = wrapper;
            this.name = name;
            this.descriptor = descriptor;
        }

        @Override
        public void visitParameter(String parameterName, int access) {
            wrapper.visitParameter(parameterName, access);
            super.visitParameter(parameterName, access);
        }

        @Override
        public AnnotationVisitor visitAnnotation(String annotationDescriptor, boolean visible) {
            return wrapper.visitAnnotation(annotationDescriptor, visible);
        }

        @Override
        public void visitAnnotableParameterCount(int parameterCount, boolean visible) {
            wrapper.visitAnnotableParameterCount(parameterCount, visible);
        }

        @Override
        public AnnotationVisitor visitParameterAnnotation(int parameter, String annotationDescriptor, boolean visible) {
            return wrapper.visitParameterAnnotation(parameter, annotationDescriptor, visible);
        }

        @Override
        public AnnotationVisitor visitTypeAnnotation(int typeRef, TypePath typePath, String annotationDescriptor, boolean visible) {
            return wrapper.visitTypeAnnotation(typeRef, typePath, annotationDescriptor, visible);
        }

        @Override
        public void visitEnd() {
            super.visitEnd();
            if (AdvisedMethods.GET_CLASSES.equals(name)) classesWithAgentFilter(wrapper, name, descriptor);
            else entryAroundOriginal(wrapper, name, descriptor);
        }
    }

    /**
     * {@code service(request, response)} or {@code doFilter(request, response, chain)}, as Byte Buddy's advice with
     * every fault of the agent suppressed:
     * <pre>
     * exchange = null; original request and response kept;
     * try {
     *     exchange = ServletBridge.enter(this, name, request, response);
     *     if (exchange != null) {
     *         if (ServletBridge.answered(exchange)) { exit(exchange, request, null); return; }
     *         request = (Request) ServletBridge.request(exchange, request);
     *         response = (Response) ServletBridge.response(exchange, response);
     *     }
     * } catch (Throwable fault) {
     *     // the agent could not even start: the application runs as if there were no agent
     *     if (exchange == null) { request, response = the originals; }
     *     // it owns the key but could not hand the application its wrappers: nothing runs, the exchange ends with the fault
     *     else { exit(exchange, request, fault); throw fault; }
     * }
     * try { this.name$original(request, response[, chain]); }
     * catch (Throwable t) { if (exchange != null) exit(exchange, request, t); throw t; }
     * if (exchange != null) exit(exchange, request, null);
     * </pre>
     * where each {@code exit} suppresses its own faults. A request the agent leaves alone costs the bridge call and a
     * null check.
     */
    private void entryAroundOriginal(MethodVisitor m, String name, String descriptor) {
        Type[] parameters = Type.getArgumentTypes(descriptor);
        int exchange = parameters.length + 1;
        int originalRequest = exchange + 1;
        int originalResponse = exchange + 2;
        int thrown = exchange + 3;
        Object[] locals = new Object[thrown];
        locals[0] = owner;
        for (int i = 0; i < parameters.length; i++) locals[i + 1] = parameters[i].getInternalName();
        locals[exchange] = EXCHANGE;
        locals[originalRequest] = parameters[0].getInternalName();
        locals[originalResponse] = parameters[1].getInternalName();
        Object[] withThrown = Arrays.copyOf(locals, thrown + 1);
        withThrown[thrown] = THROWABLE;

        Label enterStart = new Label();
        Label enterEnd = new Label();
        Label enterFault = new Label();
        Label answered = new Label();
        Label unprotected = new Label();
        Label call = new Label();
        Label callStart = new Label();
        Label callEnd = new Label();
        Label applicationThrew = new Label();
        Label done = new Label();
        Label rethrow = new Label();

        m.visitCode();
        m.visitTryCatchBlock(enterStart, enterEnd, enterFault, THROWABLE);
        m.visitTryCatchBlock(callStart, callEnd, applicationThrew, THROWABLE);
        GuardedExit onAnswer = new GuardedExit(m, exchange, -1, locals);
        GuardedExit onReturn = new GuardedExit(m, exchange, -1, locals);
        GuardedExit onFault = new GuardedExit(m, exchange, thrown, withThrown);
        GuardedExit onThrow = new GuardedExit(m, exchange, thrown, withThrown);
        m.visitInsn(Opcodes.ACONST_NULL);
        m.visitVarInsn(Opcodes.ASTORE, exchange);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitVarInsn(Opcodes.ASTORE, originalRequest);
        m.visitVarInsn(Opcodes.ALOAD, 2);
        m.visitVarInsn(Opcodes.ASTORE, originalResponse);
        m.visitLabel(enterStart);
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitLdcInsn(name);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitVarInsn(Opcodes.ALOAD, 2);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, "enter",
                "(Ljava/lang/Object;Ljava/lang/String;Ljava/lang/Object;Ljava/lang/Object;)" + EXCHANGE_DESCRIPTOR, false);
        m.visitVarInsn(Opcodes.ASTORE, exchange);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitJumpInsn(Opcodes.IFNULL, enterEnd);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, "answered", "(" + EXCHANGE_DESCRIPTOR + ")Z", false);
        m.visitJumpInsn(Opcodes.IFNE, answered);
        for (int argument = 1; argument <= 2; argument++) {
            m.visitVarInsn(Opcodes.ALOAD, exchange);
            m.visitVarInsn(Opcodes.ALOAD, argument);
            m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, argument == 1 ? "request" : "response",
                    "(" + EXCHANGE_DESCRIPTOR + "Ljava/lang/Object;)Ljava/lang/Object;", false);
            m.visitTypeInsn(Opcodes.CHECKCAST, parameters[argument - 1].getInternalName());
            m.visitVarInsn(Opcodes.ASTORE, argument);
        }
        frame(m, enterEnd, locals);
        m.visitJumpInsn(Opcodes.GOTO, call);

        m.visitLabel(enterFault);
        stackFrame(m, locals);
        m.visitVarInsn(Opcodes.ASTORE, thrown);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitJumpInsn(Opcodes.IFNULL, unprotected);
        Label faultExited = new Label();
        onFault.emit(faultExited);
        frame(m, faultExited, withThrown);
        m.visitVarInsn(Opcodes.ALOAD, thrown);
        m.visitInsn(Opcodes.ATHROW);
        frame(m, unprotected, withThrown);
        m.visitVarInsn(Opcodes.ALOAD, originalRequest);
        m.visitVarInsn(Opcodes.ASTORE, 1);
        m.visitVarInsn(Opcodes.ALOAD, originalResponse);
        m.visitVarInsn(Opcodes.ASTORE, 2);
        m.visitJumpInsn(Opcodes.GOTO, call);

        frame(m, answered, locals);
        Label answerExited = new Label();
        onAnswer.emit(answerExited);
        frame(m, answerExited, locals);
        m.visitInsn(Opcodes.RETURN);

        frame(m, call, locals);
        m.visitLabel(callStart);
        m.visitVarInsn(Opcodes.ALOAD, 0);
        for (int i = 1; i <= parameters.length; i++) m.visitVarInsn(Opcodes.ALOAD, i);
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, name + ORIGINAL_SUFFIX, descriptor, false);
        m.visitLabel(callEnd);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitJumpInsn(Opcodes.IFNULL, done);
        onReturn.emit(done);
        frame(m, done, locals);
        m.visitInsn(Opcodes.RETURN);

        m.visitLabel(applicationThrew);
        stackFrame(m, locals);
        m.visitVarInsn(Opcodes.ASTORE, thrown);
        m.visitVarInsn(Opcodes.ALOAD, exchange);
        m.visitJumpInsn(Opcodes.IFNULL, rethrow);
        onThrow.emit(rethrow);
        frame(m, rethrow, withThrown);
        m.visitVarInsn(Opcodes.ALOAD, thrown);
        m.visitInsn(Opcodes.ATHROW);
        m.visitMaxs(Math.max(4, parameters.length + 1), thrown + 1);
        m.visitEnd();
    }

    /**
     * {@code try { ServletBridge.exit(exchange, request, thrown or null); } catch (Throwable ignored) { }}, then on at a
     * label whose frame the caller writes right after. Its handler is registered when it is made, before the method's
     * instructions (ASM wants a handler's labels unvisited when it is registered).
     */
    private final class GuardedExit {
        private final MethodVisitor m;
        private final int exchange;
        private final int thrown;
        private final Object[] locals;
        private final Label start = new Label();
        private final Label end = new Label();
        private final Label handler = new Label();

        GuardedExit(MethodVisitor m, int exchange, int thrown, Object[] locals) {
            this.m = m;
            this.exchange = exchange;
            this.thrown = thrown;
            this.locals = locals;
            m.visitTryCatchBlock(start, end, handler, THROWABLE);
        }

        void emit(Label next) {
            m.visitLabel(start);
            m.visitVarInsn(Opcodes.ALOAD, exchange);
            m.visitVarInsn(Opcodes.ALOAD, 1);
            if (thrown < 0) m.visitInsn(Opcodes.ACONST_NULL);
            else m.visitVarInsn(Opcodes.ALOAD, thrown);
            m.visitMethodInsn(Opcodes.INVOKESTATIC, SERVLET_BRIDGE, "exit",
                    "(" + EXCHANGE_DESCRIPTOR + "Ljava/lang/Object;Ljava/lang/Throwable;)V", false);
            m.visitLabel(end);
            m.visitJumpInsn(Opcodes.GOTO, next);
            m.visitLabel(handler);
            stackFrame(m, locals);
            m.visitInsn(Opcodes.POP);
        }
    }

    private void frame(MethodVisitor m, Label label, Object[] locals) {
        m.visitLabel(label);
        if (frames) m.visitFrame(Opcodes.F_FULL, locals.length, locals, 0, new Object[0]);
    }

    /** The frame of an exception handler: the locals, and the Throwable on the stack. */
    private void stackFrame(MethodVisitor m, Object[] locals) {
        if (frames) m.visitFrame(Opcodes.F_FULL, locals.length, locals, 1, new Object[] {THROWABLE});
    }

    /**
     * {@code getClasses()}, of any return type (a covariant one too):
     * {@code T classes = this.getClasses$original(); try { return (T) JaxrsBridge.withAgentFilter(this, classes); }
     * catch (Throwable fault) { return classes; }}.
     */
    private void classesWithAgentFilter(MethodVisitor m, String name, String descriptor) {
        String returned = Type.getReturnType(descriptor).getInternalName();
        Label start = new Label();
        Label end = new Label();
        Label fault = new Label();
        m.visitCode();
        m.visitTryCatchBlock(start, end, fault, THROWABLE);
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, name + ORIGINAL_SUFFIX, descriptor, false);
        m.visitVarInsn(Opcodes.ASTORE, 1);
        m.visitLabel(start);
        m.visitVarInsn(Opcodes.ALOAD, 0);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitMethodInsn(Opcodes.INVOKESTATIC, JAXRS_BRIDGE, "withAgentFilter", "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;", false);
        m.visitTypeInsn(Opcodes.CHECKCAST, returned);
        m.visitInsn(Opcodes.ARETURN);
        m.visitLabel(end);
        m.visitLabel(fault);
        stackFrame(m, new Object[] {owner, returned});
        m.visitInsn(Opcodes.POP);
        m.visitVarInsn(Opcodes.ALOAD, 1);
        m.visitInsn(Opcodes.ARETURN);
        m.visitMaxs(2, 2);
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

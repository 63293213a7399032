package dev.idempotency.agent.core.instrument;

import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DeclaredMethodsTest {
    private static final String SERVICE = "(Ljavax/servlet/ServletRequest;Ljavax/servlet/ServletResponse;)V";
    private final DeclaredMethods advised = AdvisedMethods.inClassFiles();

    /** A class with the given methods (name, descriptor pairs), a field named "service", and constants of every width. */
    private static byte[] classDeclaring(String... methods) {
        ClassWriter writer = new ClassWriter(0);
        writer.visit(Opcodes.V11, Opcodes.ACC_PUBLIC, "example/Component", null, "java/lang/Object", null);
        FieldVisitor field = writer.visitField(Opcodes.ACC_PRIVATE, "service", "Ljava/lang/Object;", null, null);
        field.visitEnd();
        MethodVisitor constants = writer.visitMethod(Opcodes.ACC_PUBLIC, "constants", "()V", null, null);
        constants.visitCode();
        constants.visitLdcInsn(Long.MAX_VALUE); // two constant pool slots
        constants.visitLdcInsn(Double.MAX_VALUE);
        constants.visitLdcInsn(Integer.MAX_VALUE);
        constants.visitLdcInsn("a string");
        // calls a method named service: a reference, not a declaration
        constants.visitMethodInsn(Opcodes.INVOKESTATIC, "example/Other", "service", SERVICE, false);
        constants.visitInsn(Opcodes.RETURN);
        constants.visitMaxs(8, 1);
        constants.visitEnd();
        for (int i = 0; i < methods.length; i += 2) {
            MethodVisitor method = writer.visitMethod(Opcodes.ACC_PUBLIC | Opcodes.ACC_ABSTRACT, methods[i], methods[i + 1], null, null);
            method.visitEnd();
        }
        writer.visitEnd();
        return writer.toByteArray();
    }

    @Test
    void aClassThatDeclaresNoneOfTheMethodsIsPassedOver() {
        assertFalse(advised.mayDeclare(classDeclaring()));
        assertFalse(advised.mayDeclare(classDeclaring("doPost", SERVICE, "init", "()V")));
    }

    @Test
    void aNameUsedOnlyForAFieldOrACallIsNotADeclaration() {
        byte[] classFile = classDeclaring();
        assertTrue(new String(classFile, java.nio.charset.StandardCharsets.ISO_8859_1).contains("service"));
        assertFalse(advised.mayDeclare(classFile));
    }

    @Test
    void eachAdvisedShapeIsFound() {
        assertTrue(advised.mayDeclare(classDeclaring("service", SERVICE)));
        assertTrue(advised.mayDeclare(classDeclaring("service", "(Ljakarta/servlet/http/HttpServletRequest;Ljakarta/servlet/http/HttpServletResponse;)V")));
        assertTrue(advised.mayDeclare(classDeclaring("doFilter",
                "(Ljavax/servlet/ServletRequest;Ljavax/servlet/ServletResponse;Ljavax/servlet/FilterChain;)V")));
        assertTrue(advised.mayDeclare(classDeclaring("other", "()V", "getClasses", "()Ljava/util/Set;")));
    }

    @Test
    void aMethodOfAnAdvisedNameButAnotherShapeIsPassedOver() {
        // Tomcat's coyote Adapter.service(Request, Response), a filter chain's doFilter(request, response), getClasses(x)
        assertFalse(advised.mayDeclare(classDeclaring("service", "(Lorg/apache/coyote/Request;Lorg/apache/coyote/Response;)V")));
        assertFalse(advised.mayDeclare(classDeclaring("doFilter", "(Ljavax/servlet/ServletRequest;Ljavax/servlet/ServletResponse;)V")));
        assertFalse(advised.mayDeclare(classDeclaring("getClasses", "(I)Ljava/util/Set;")));
        assertFalse(advised.mayDeclare(classDeclaring("service", "(Ljavax/servlet/ServletRequest;)V")));
    }

    @Test
    void whatCannotBeReadIsAMaybe() {
        byte[] servlet = classDeclaring("service", SERVICE);
        assertTrue(advised.mayDeclare(Arrays.copyOf(servlet, servlet.length - 40)));
        assertTrue(advised.mayDeclare(new byte[] {1, 2, 3}));
        byte[] unknownTag = classDeclaring();
        unknownTag[10] = (byte) 99; // the first constant pool entry
        assertTrue(advised.mayDeclare(unknownTag));
    }

    @Test
    void parametersAreCounted() {
        assertEquals(0, DeclaredMethods.parameterCount("()V"));
        assertEquals(3, DeclaredMethods.parameterCount("(I[[Ljava/lang/String;J)V"));
        assertEquals(2, DeclaredMethods.parameterCount("([IL;)Ljava/lang/Object;"));
    }
}

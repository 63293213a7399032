package dev.idempotency.agent.core.instrument;

import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;


import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A class that another agent gave an interface defined only at run time (no class file anywhere), as the
 * OpenTelemetry agent does: the type pool cannot resolve that interface, yet the class is still recognised.
 */
class SuperTypeNamedTest {

    private static TypeDescription describedWithUnresolvableInterface() {
        // Made here, but its class file is given to nobody: like a type another agent defines at run time.
        TypeDescription generated = new ByteBuddy().makeInterface().name("io.other.agent.GeneratedFieldAccessor").make().getTypeDescription();
        byte[] bytes = new ByteBuddy().subclass(javax.ws.rs.core.Application.class)
                .name("com.example.ShopApplication")
                .implement(generated)
                .modifiers(Visibility.PUBLIC)
                .make().getBytes();
        ClassFileLocator locator = new ClassFileLocator.Compound(
                ClassFileLocator.Simple.of("com.example.ShopApplication", bytes),
                ClassFileLocator.ForClassLoader.of(SuperTypeNamedTest.class.getClassLoader()));
        return TypePool.Default.of(locator).describe("com.example.ShopApplication").resolve();
    }

    @Test
    void aSuperTypeIsFoundPastAnInterfaceThatCannotBeResolved() {
        TypeDescription type = describedWithUnresolvableInterface();
        assertThrows(RuntimeException.class, () -> hasSuperType(named("javax.ws.rs.core.Application")).matches(type),
                "the plain matcher fails on such a class");
        assertTrue(SuperTypeNamed.anyOf("javax.ws.rs.core.Application").matches(type));
        assertTrue(SuperTypeNamed.anyOf("java.lang.Object").matches(type));
        assertFalse(SuperTypeNamed.anyOf("javax.servlet.Filter", "jakarta.servlet.Filter").matches(type));
    }

    @Test
    void theJdkTypesThatEndEveryHierarchyAreNeverRead() {
        byte[] servlet = new ByteBuddy().subclass(javax.ws.rs.core.Application.class).name("com.example.ShopApi")
                .implement(Runnable.class, java.io.Closeable.class).make().getBytes();
        byte[] plain = new ByteBuddy().subclass(java.util.AbstractList.class).name("com.example.Plain")
                .implement(java.util.RandomAccess.class).make().getBytes();
        java.util.List<String> read = new java.util.ArrayList<>();
        ClassFileLocator classpath = ClassFileLocator.ForClassLoader.of(SuperTypeNamedTest.class.getClassLoader());
        ClassFileLocator recording = new ClassFileLocator() {
            @Override
            public Resolution locate(String name) throws java.io.IOException {
                read.add(name);
                return classpath.locate(name);
            }

            @Override
            public void close() {
            }
        };
        TypePool pool = TypePool.Default.WithLazyResolution.of(new ClassFileLocator.Compound(
                ClassFileLocator.Simple.of("com.example.ShopApi", servlet), ClassFileLocator.Simple.of("com.example.Plain", plain), recording));
        assertTrue(SuperTypeNamed.anyOf("javax.ws.rs.core.Application").matches(pool.describe("com.example.ShopApi").resolve()));
        assertFalse(SuperTypeNamed.anyOf("javax.ws.rs.core.Application").matches(pool.describe("com.example.Plain").resolve()));
        assertFalse(SuperTypeNamed.anyOf("javax.servlet.Servlet").matches(pool.describe("com.example.ShopApi").resolve()));
        assertTrue(read.stream().noneMatch(n -> n.startsWith("java.")), "no JDK class file is read: " + read);
    }
}

package dev.idempotency.agent.core.inprocess;

import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassWriter;
import net.bytebuddy.jar.asm.commons.ClassRemapper;
import net.bytebuddy.jar.asm.commons.Remapper;

/**
 * The relocation agent/servlet-jakarta's shade plugin applies to the javax edge: {@code javax.servlet} becomes
 * {@code jakarta.servlet} and the edge's package {@code ...servlet.javax} becomes {@code ...servlet.jakarta}, in type
 * names and in string constants alike (the edge has one: {@code ServletContext.TEMPDIR}, inlined).
 */
final class JakartaRelocation {
    private static final String[][] PREFIXES = {
        {"javax/servlet/", "jakarta/servlet/"},
        {"dev/idempotency/agent/servlet/javax/", "dev/idempotency/agent/servlet/jakarta/"}};

    private JakartaRelocation() {
    }

    static byte[] relocate(byte[] javaxClassFile) {
        ClassWriter writer = new ClassWriter(0);
        new ClassReader(javaxClassFile).accept(new ClassRemapper(writer, new Remapper() {
            @Override
            public String map(String internalName) {
                return relocated(internalName, '/');
            }

            @Override
            public Object mapValue(Object value) {
                if (!(value instanceof String)) return super.mapValue(value);
                String text = (String) value;
                return relocated(relocated(text, '/'), '.');
            }
        }), 0);
        return writer.toByteArray();
    }

    private static String relocated(String name, char separator) {
        for (String[] prefix : PREFIXES) {
            String from = prefix[0].replace('/', separator);
            if (name.startsWith(from)) return prefix[1].replace('/', separator) + name.substring(from.length());
        }
        return name;
    }
}

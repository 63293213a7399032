package dev.idempotency.agent.core.instrument;

import java.nio.charset.StandardCharsets;

/**
 * Reads from a class file, without Byte Buddy and without loading anything, whether it declares a method of one of a
 * few shapes (name, number of parameters, type of the first). Advice only ever goes into methods a class declares
 * itself, so a class that declares none of the advised methods needs no transformation whatever its super types are:
 * the server's thousands of other classes are passed over after one walk of their constant pool. Whatever cannot be
 * read is answered "maybe", so that the full matcher decides.
 */
public final class DeclaredMethods {
    private static final int MAGIC = 0xCAFEBABE;
    private static final int UTF8 = 1;

    /** A method's name, its number of parameters, and the descriptors its first parameter may have (any when empty). */
    static final class Shape {
        final byte[] name;
        final int parameters;
        final String[] firstParameters;

        private Shape(String name, int parameters, String[] firstParameterTypes) {
            this.name = name.getBytes(StandardCharsets.UTF_8);
            this.parameters = parameters;
            this.firstParameters = new String[firstParameterTypes.length];
            for (int i = 0; i < firstParameterTypes.length; i++) firstParameters[i] = 'L' + firstParameterTypes[i].replace('.', '/') + ';';
        }

        boolean accepts(String descriptor) {
            if (parameterCount(descriptor) != parameters) return false;
            if (firstParameters.length == 0) return true;
            for (String first : firstParameters) if (descriptor.startsWith(first, 1)) return true;
            return false;
        }
    }

    static Shape shape(String name, int parameters, String... firstParameterTypes) {
        return new Shape(name, parameters, firstParameterTypes);
    }

    private final Shape[] shapes;

    DeclaredMethods(Shape... shapes) {
        this.shapes = shapes.clone();
    }

    /** False only when the class file certainly declares no method of these shapes. */
    public boolean mayDeclare(byte[] classFile) {
        try {
            return scan(classFile);
        } catch (RuntimeException unreadable) { // truncated, or of a format this reader does not know
            return true;
        }
    }

    private boolean scan(byte[] b) {
        if (b.length < 10 || u4(b, 0) != MAGIC) return true;
        int poolSize = u2(b, 8);
        if (walkPool(b, poolSize, null, null) < 0) return false; // the usual case: none of the names occurs at all
        int[] entries = new int[poolSize];
        Shape[] named = new Shape[poolSize];
        int offset = walkPool(b, poolSize, entries, named);
        offset += 6; // access flags, this class, super class
        offset += 2 + 2 * u2(b, offset); // interfaces
        offset = skipFields(b, offset);
        int methods = u2(b, offset);
        offset += 2;
        for (int i = 0; i < methods; i++) {
            Shape shape = named[u2(b, offset + 2)];
            if (shape != null && shape.accepts(utf8(b, entries[u2(b, offset + 4)]))) return true;
            offset = skipAttributes(b, offset + 6);
        }
        return false;
    }

    /**
     * Walks the constant pool. Without {@code entries}, only asks whether any shape's name is there: -1 when none.
     * With them, records where each entry starts and which shape each name entry names; returns where the pool ends.
     */
    private int walkPool(byte[] b, int poolSize, int[] entries, Shape[] named) {
        boolean anyName = false;
        int offset = 10;
        for (int index = 1; index < poolSize; index++) {
            if (entries != null) entries[index] = offset;
            switch (b[offset] & 0xff) {
                case UTF8: {
                    int length = u2(b, offset + 1);
                    Shape shape = shapeNamed(b, offset + 3, length);
                    if (shape != null) {
                        anyName = true;
                        if (named != null) named[index] = shape;
                    }
                    offset += 3 + length;
                    break;
                }
                case 7: case 8: case 16: case 19: case 20: // class, string, method type, module, package
                    offset += 3;
                    break;
                case 15: // method handle
                    offset += 4;
                    break;
                case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: // int, float, refs, name and type, dynamic
                    offset += 5;
                    break;
                case 5: case 6: // long, double: two slots
                    offset += 9;
                    index++;
                    break;
                default:
                    throw new IllegalArgumentException("constant pool tag " + (b[offset] & 0xff));
            }
        }
        return anyName || entries != null ? offset : -1;
    }

    private static int skipFields(byte[] b, int offset) {
        int fields = u2(b, offset);
        offset += 2;
        for (int i = 0; i < fields; i++) offset = skipAttributes(b, offset + 6);
        return offset;
    }

    private static int skipAttributes(byte[] b, int offset) {
        int attributes = u2(b, offset);
        offset += 2;
        for (int a = 0; a < attributes; a++) offset += 6 + u4(b, offset + 2);
        return offset;
    }

    private Shape shapeNamed(byte[] b, int start, int length) {
        for (Shape shape : shapes) {
            byte[] name = shape.name;
            if (name.length != length) continue;
            int i = 0;
            while (i < length && b[start + i] == name[i]) i++;
            if (i == length) return shape;
        }
        return null;
    }

    /** A descriptor's text; descriptors of the shapes' interest are plain ASCII, anything else then simply fails to match. */
    private static String utf8(byte[] b, int entry) {
        return new String(b, entry + 3, u2(b, entry + 1), StandardCharsets.ISO_8859_1);
    }

    static int parameterCount(String descriptor) {
        int count = 0;
        int i = 1;
        while (descriptor.charAt(i) != ')') {
            char c = descriptor.charAt(i);
            if (c == '[') {
                i++;
                continue;
            }
            if (c == 'L') i = descriptor.indexOf(';', i);
            i++;
            count++;
        }
        return count;
    }

    private static int u2(byte[] b, int at) {
        return ((b[at] & 0xff) << 8) | (b[at + 1] & 0xff);
    }

    private static int u4(byte[] b, int at) {
        return (u2(b, at) << 16) | u2(b, at + 2);
    }
}

package dev.idempotency.agent.core.instrument;

/** Searches a class file's bytes for ASCII text (a name in its constant pool), without parsing it. */
public final class ClassFileText {
    private ClassFileText() {
    }

    public static boolean contains(byte[] classFile, byte[] text) {
        outer:
        for (int i = 0, last = classFile.length - text.length; i <= last; i++) {
            for (int j = 0; j < text.length; j++) if (classFile[i + j] != text[j]) continue outer;
            return true;
        }
        return false;
    }
}

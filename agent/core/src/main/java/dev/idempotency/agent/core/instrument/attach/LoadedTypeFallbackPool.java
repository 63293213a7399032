package dev.idempotency.agent.core.instrument.attach;

import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.pool.TypePool;

/**
 * Describes types lazily from their class files, and falls back to the loaded class for a type that has none: another
 * agent may define interfaces at run time and add them to servlets (OpenTelemetry's generated field accessors), and
 * without that fallback such a servlet could not be instrumented at all. The fallback sits in the pool that parses
 * the servlet, so it also serves the servlet's own super types; nothing is read or loaded before it is needed (a
 * type the agent ignores by its name is never read at all).
 */
final class LoadedTypeFallbackPool implements AgentBuilder.PoolStrategy {

    @Override
    public TypePool typePool(ClassFileLocator locator, ClassLoader loader) {
        return new Pool(locator, loader);
    }

    @Override
    public TypePool typePool(ClassFileLocator locator, ClassLoader loader, String name) {
        return typePool(locator, loader);
    }

    private static final class Pool extends TypePool.Default.WithLazyResolution {
        private final ClassLoader loader;

        Pool(ClassFileLocator locator, ClassLoader loader) {
            super(TypePool.CacheProvider.Simple.withObjectType(), locator, TypePool.Default.ReaderMode.FAST);
            this.loader = loader;
        }

        @Override
        public Resolution describe(String name) {
            Resolution fromClassFile = super.describe(name);
            if (name.indexOf('[') >= 0 || name.indexOf('.') < 0) return fromClassFile;
            return new OrLoaded(name, fromClassFile, loader);
        }
    }

    /** The class file's description when there is a class file, else the loaded class's. */
    private static final class OrLoaded implements TypePool.Resolution {
        private final String name;
        private final TypePool.Resolution fromClassFile;
        private final ClassLoader loader;

        OrLoaded(String name, TypePool.Resolution fromClassFile, ClassLoader loader) {
            this.name = name;
            this.fromClassFile = fromClassFile;
            this.loader = loader;
        }

        @Override
        public boolean isResolved() {
            return fromClassFile.isResolved() || loaded() != null;
        }

        @Override
        public TypeDescription resolve() {
            return new TypeDescription.AbstractBase.OfSimpleType.WithDelegation() {
                private volatile TypeDescription delegate;

                @Override
                public String getName() {
                    return name;
                }

                @Override
                protected TypeDescription delegate() {
                    TypeDescription d = delegate;
                    if (d == null) {
                        Class<?> type = fromClassFile.isResolved() ? null : loaded();
                        d = type == null ? fromClassFile.resolve() : TypeDescription.ForLoadedType.of(type);
                        delegate = d;
                    }
                    return d;
                }
            };
        }

        private Class<?> loaded() {
            try {
                return Class.forName(name, false, loader);
            } catch (ClassNotFoundException | LinkageError notLoadable) {
                return null;
            }
        }
    }
}

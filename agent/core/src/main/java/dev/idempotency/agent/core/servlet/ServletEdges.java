package dev.idempotency.agent.core.servlet;

import dev.idempotency.agent.bootstrap.bridge.ServletAccessor;
import dev.idempotency.agent.core.log.AgentLog;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Finds the servlet API a servlet class was built against and the edge that speaks it. The edge classes are defined
 * in a small loader whose parent is the loader of the container's servlet API, so they extend the real wrapper types;
 * a {@link ClassValue} ties each edge to the servlet class it serves and lets both go when a web application is
 * undeployed.
 */
final class ServletEdges {
    static final String JAVAX_BASE = "javax.servlet.http.HttpServlet";
    static final String JAKARTA_BASE = "jakarta.servlet.http.HttpServlet";

    /** Per servlet class: the accessor for its servlet API, or null when it has none the agent knows. */
    private final ClassValue<ServletAccessor> byServletClass = new ClassValue<ServletAccessor>() {
        @Override
        protected ServletAccessor computeValue(Class<?> servletClass) {
            for (Class<?> c = servletClass; c != null; c = c.getSuperclass()) {
                if (c.getName().equals(JAVAX_BASE) || c.getName().equals(JAKARTA_BASE)) return byApiClass.get(c);
            }
            return null;
        }
    };

    /** Per HttpServlet class (one per servlet API loader): its edge. */
    private final ClassValue<ServletAccessor> byApiClass = new ClassValue<ServletAccessor>() {
        @Override
        protected ServletAccessor computeValue(Class<?> httpServlet) {
            String edgePackage = httpServlet.getName().startsWith("javax.")
                    ? "dev.idempotency.agent.servlet.javax" : "dev.idempotency.agent.servlet.jakarta";
            try {
                ClassLoader edge = new EdgeLoader(httpServlet.getClassLoader(), edgePackage + ".");
                Class<?> accessor = Class.forName(edgePackage + ".ServletApiAccessor", true, edge);
                AgentLog.debug("servlet edge " + edgePackage + " ready for " + httpServlet.getClassLoader());
                return (ServletAccessor) accessor.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                AgentLog.error("cannot attach to the servlet API of " + httpServlet.getClassLoader()
                        + "; requests of its servlets are NOT protected", e);
                return null;
            }
        }
    };

    ServletAccessor forServlet(Class<?> servletClass) {
        return byServletClass.get(servletClass);
    }

    /** Defines the edge classes from the agent jar; everything else comes from the servlet API's loader. */
    private static final class EdgeLoader extends ClassLoader {
        private final String edgePackage;

        EdgeLoader(ClassLoader servletApiLoader, String edgePackage) {
            super(servletApiLoader);
            this.edgePackage = edgePackage;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.startsWith(edgePackage)) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) c = findClass(name);
                if (resolve) resolveClass(c);
                return c;
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            String resource = name.replace('.', '/') + ".class";
            try (InputStream in = ServletEdges.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) throw new ClassNotFoundException(name);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] buffer = new byte[8192];
                for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
                byte[] bytes = out.toByteArray();
                return defineClass(name, bytes, 0, bytes.length, ServletEdges.class.getProtectionDomain());
            } catch (IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }
}

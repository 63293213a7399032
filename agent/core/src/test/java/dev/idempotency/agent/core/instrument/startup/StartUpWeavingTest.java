package dev.idempotency.agent.core.instrument.startup;

import dev.idempotency.agent.bootstrap.bridge.JaxrsAccessor;
import dev.idempotency.agent.bootstrap.bridge.JaxrsBridge;
import dev.idempotency.agent.bootstrap.bridge.JaxrsHandler;
import dev.idempotency.agent.bootstrap.bridge.ServletBridge;
import dev.idempotency.agent.bootstrap.bridge.ServletExchange;
import dev.idempotency.agent.bootstrap.bridge.ServletHandler;
import dev.idempotency.woven.WovenComponents;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.servlet.Filter;
import javax.servlet.FilterChain;
import javax.servlet.Servlet;
import javax.servlet.ServletException;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.ws.rs.core.Application;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the start-up weaver's code does when it runs: classes of an application that knows nothing of the agent are
 * woven as a server would load them, and called with a handler of the test's own behind the bridge.
 */
class StartUpWeavingTest {
    private final List<Object[]> exits = new ArrayList<>();
    private Function<Object, ServletExchange> onEnter = request -> null;
    private final List<Object[]> entries = new ArrayList<>();

    @BeforeEach
    void handler() {
        WovenComponents.SEEN.clear();
        ServletBridge.install(new ServletHandler() {
            @Override
            public ServletExchange enter(Object component, boolean servlet, Object request, Object response) {
                entries.add(new Object[] {component, servlet, request, response});
                return onEnter.apply(request);
            }

            @Override
            public void exit(ServletExchange exchange, Object request, Throwable thrown) {
                exits.add(new Object[] {exchange, request, thrown});
            }
        });
    }

    @AfterEach
    void noHandler() {
        ServletBridge.install(null);
        JaxrsBridge.install(null);
    }

    @Test
    void aRequestTheAgentLeavesAloneReachesTheApplicationAsItCame() throws Exception {
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        ServletRequest request = request(null);
        ServletResponse response = response();
        servlet.service(request, response);
        assertArrayEquals(new Object[] {request, response}, WovenComponents.SEEN.get(0));
        assertEquals(1, entries.size());
        assertSame(servlet, entries.get(0)[0]);
        assertEquals(true, entries.get(0)[1], "a servlet's entry");
        assertEquals(0, exits.size(), "no exchange, no exit");
    }

    @Test
    void theApplicationSeesTheAgentsWrappersAndTheExitSeesTheWrappedRequest() throws Exception {
        ServletRequest wrapper = request(null);
        ServletResponse responseWrapper = response();
        ServletExchange exchange = exchange(false, wrapper, responseWrapper);
        onEnter = request -> exchange;
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        servlet.service(request(null), response());
        assertArrayEquals(new Object[] {wrapper, responseWrapper}, WovenComponents.SEEN.get(0));
        assertEquals(1, exits.size());
        assertArrayEquals(new Object[] {exchange, wrapper, null}, exits.get(0));
    }

    @Test
    void anAnsweredRequestNeverReachesTheApplicationAndStillExits() throws Exception {
        ServletExchange answered = exchange(true, null, null);
        onEnter = request -> answered;
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        ServletRequest request = request(null);
        servlet.service(request, response());
        assertEquals(0, WovenComponents.SEEN.size(), "the application ran");
        assertEquals(1, exits.size());
        assertArrayEquals(new Object[] {answered, request, null}, exits.get(0));
    }

    @Test
    void whatTheApplicationThrowsReachesTheExitAndTheCaller() throws Exception {
        ServletRequest failing = request("fail");
        ServletExchange exchange = exchange(false, failing, response());
        onEnter = request -> exchange;
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        ServletException thrown = assertThrows(ServletException.class, () -> servlet.service(request(null), response()));
        assertEquals("the application failed", thrown.getMessage());
        assertEquals(1, exits.size());
        assertSame(thrown, exits.get(0)[2]);
    }

    @Test
    void aFaultOfTheAgentNeverReachesTheApplication() throws Exception {
        onEnter = request -> {
            throw new IllegalStateException("the agent's own fault");
        };
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        ServletRequest request = request(null);
        servlet.service(request, response());
        assertSame(request, WovenComponents.SEEN.get(0)[0]);

        ServletExchange broken = (ServletExchange) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {ServletExchange.class},
                (proxy, method, args) -> {
                    throw new IllegalStateException("broken exchange");
                });
        onEnter = r -> broken;
        servlet.service(request, response());
        assertSame(request, WovenComponents.SEEN.get(1)[0], "a broken exchange leaves the request as it came");
        assertEquals(1, exits.size());
    }

    @Test
    void aFilterIsEnteredAsAFilterAndPassesTheChainOn() throws Exception {
        ServletRequest wrapper = request(null);
        ServletExchange exchange = exchange(false, wrapper, response());
        onEnter = request -> exchange;
        Filter filter = woven(WovenComponents.PassingFilter.class, Filter.class);
        List<Object> chained = new ArrayList<>();
        FilterChain chain = (request, response) -> chained.add(request);
        filter.doFilter(request(null), response(), chain);
        assertEquals(false, entries.get(0)[1], "a filter's entry");
        assertEquals(1, chained.size());
        assertSame(wrapper, chained.get(0));
        assertEquals(1, exits.size());
    }

    @Test
    void theOriginalBodyIsHiddenFromReflectionThatLooksForPublicMethods() throws Exception {
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        Method original = servlet.getClass().getDeclaredMethod("service" + EntryWeaver.ORIGINAL_SUFFIX, ServletRequest.class, ServletResponse.class);
        assertTrue(Modifier.isPrivate(original.getModifiers()) && original.isSynthetic());
        for (Method method : servlet.getClass().getMethods()) assertTrue(!method.getName().endsWith(EntryWeaver.ORIGINAL_SUFFIX), method.toString());
        Method service = servlet.getClass().getMethod("service", ServletRequest.class, ServletResponse.class);
        assertEquals(2, service.getExceptionTypes().length, "the declared exceptions stay");
    }

    @Test
    void aJaxrsApplicationsClassesGetTheAgentsFilter() throws Exception {
        JaxrsBridge.install(new AddingJaxrsHandler());
        Application application = woven(WovenComponents.RestApplication.class, Application.class);
        Set<Class<?>> classes = application.getClasses();
        assertEquals(new HashSet<>(java.util.Arrays.asList(String.class, Integer.class)), classes);
        JaxrsBridge.install(null);
        assertEquals(java.util.Collections.singleton(String.class), application.getClasses(), "without the agent, as written");
    }

    @Test
    void classesThatAreNoComponentsAreLeftAsTheyAre() throws Exception {
        assertNull(StartUpTransformer.weave(getClass().getClassLoader(), internalName(StartUpWeavingTest.class), classFile(StartUpWeavingTest.class)));
        assertNull(StartUpTransformer.weave(getClass().getClassLoader(), internalName(AddingJaxrsHandler.class), classFile(AddingJaxrsHandler.class)));
    }

    @Test
    void aWrapperTheAgentCannotHandTheApplicationEndsTheExchangeAndTheApplicationDoesNotRun() throws Exception {
        ServletExchange broken = exchange(false, "not a request", response());
        onEnter = request -> broken;
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        assertThrows(ClassCastException.class, () -> servlet.service(request(null), response()));
        assertEquals(0, WovenComponents.SEEN.size(), "the application ran without the agent's wrappers");
        assertEquals(1, exits.size());
        assertTrue(exits.get(0)[2] instanceof ClassCastException, "the exchange ends with the fault: " + exits.get(0)[2]);
    }

    @Test
    void aLoaderThatCannotSeeTheBridgeRunsTheApplicationAsIfThereWereNoAgent() throws Exception {
        String name = internalName(WovenComponents.Servlet.class);
        byte[] wovenFile = StartUpTransformer.weave(getClass().getClassLoader(), name, classFile(WovenComponents.Servlet.class));
        ClassLoader test = getClass().getClassLoader();
        // everything from the test's class path but the bridge, as an OSGi bundle without boot delegation would see it
        ClassLoader blind = new ClassLoader(ClassLoader.getPlatformClassLoader()) {
            @Override
            protected Class<?> findClass(String className) throws ClassNotFoundException {
                if (className.startsWith("dev.idempotency.agent.bootstrap.")) throw new ClassNotFoundException(className);
                byte[] bytes;
                try {
                    bytes = className.equals(WovenComponents.Servlet.class.getName()) ? wovenFile : readClass(test, className);
                } catch (IOException e) {
                    throw new ClassNotFoundException(className, e);
                }
                return defineClass(className, bytes, 0, bytes.length);
            }

            @Override
            public java.net.URL getResource(String resource) {
                return resource.startsWith("dev/idempotency/agent/bootstrap/") ? null : test.getResource(resource);
            }
        };
        assertNull(StartUpTransformer.weave(blind, name, classFile(WovenComponents.Servlet.class)), "woven for a loader without the bridge");
        Class<?> servletClass = blind.loadClass(WovenComponents.Servlet.class.getName());
        Class<?> requestType = blind.loadClass(ServletRequest.class.getName());
        Class<?> responseType = blind.loadClass(ServletResponse.class.getName());
        Object request = Proxy.newProxyInstance(blind, new Class<?>[] {requestType}, (proxy, method, args) -> null);
        Object response = Proxy.newProxyInstance(blind, new Class<?>[] {responseType}, (proxy, method, args) -> null);
        Object servlet = servletClass.getConstructor().newInstance();
        servletClass.getMethod("service", requestType, responseType).invoke(servlet, request, response);
        @SuppressWarnings("unchecked")
        List<Object[]> seen = (List<Object[]>) blind.loadClass(WovenComponents.class.getName()).getField("SEEN").get(null);
        assertEquals(1, seen.size(), "the application ran");
        assertSame(request, seen.get(0)[0]);
    }

    @Test
    void annotationsStayOnTheMethodOfTheOriginalName() throws Exception {
        Servlet servlet = woven(WovenComponents.Servlet.class, Servlet.class);
        Method service = servlet.getClass().getMethod("service", ServletRequest.class, ServletResponse.class);
        Class<? extends java.lang.annotation.Annotation> mark = WovenComponents.Mark.class;
        assertTrue(service.isAnnotationPresent(mark), "the method's own annotation");
        assertEquals(1, service.getParameterAnnotations()[0].length, "its parameter's annotation");
        Method original = servlet.getClass().getDeclaredMethod("service" + EntryWeaver.ORIGINAL_SUFFIX, ServletRequest.class, ServletResponse.class);
        assertFalse(original.isAnnotationPresent(mark), "the renamed body is no second target for annotation-driven tools");
    }

    @Test
    void aClassIsWovenOnce() throws Exception {
        String name = internalName(WovenComponents.Servlet.class);
        byte[] once = StartUpTransformer.weave(getClass().getClassLoader(), name, classFile(WovenComponents.Servlet.class));
        assertNotNull(once);
        assertNull(StartUpTransformer.weave(getClass().getClassLoader(), name, once), "woven output handed back is left as it is");
    }

    @Test
    void onlyClassesWovenWhenDefinedAreWovenAgainWhenRedefined() throws Exception {
        StartUpTransformer transformer = new StartUpTransformer();
        ClassLoader loader = new java.net.URLClassLoader(new java.net.URL[0], getClass().getClassLoader()); // not the agent's own
        String name = internalName(WovenComponents.Servlet.class);
        byte[] bytes = classFile(WovenComponents.Servlet.class);
        assertNull(transformer.transform(null, name, null, null, bytes), "the bootstrap loader holds no servlets");
        assertNull(transformer.transform(loader, name, WovenComponents.Servlet.class, null, bytes),
                "a class loaded unwoven may not gain methods in a redefinition");
        assertNotNull(transformer.transform(loader, name, null, null, bytes), "woven when defined");
        assertNotNull(transformer.transform(loader, name, WovenComponents.Servlet.class, null, bytes), "and so again when redefined");
    }

    @Test
    void aCovariantGetClassesGetsTheAgentsFilterByEitherMethod() throws Exception {
        JaxrsBridge.install(new AddingJaxrsHandler());
        Application application = woven(WovenComponents.CovariantApplication.class, Application.class);
        assertTrue(application.getClasses().contains(Integer.class), "through Application.getClasses()");
        Object narrow = application.getClass().getMethod("getClasses").invoke(application);
        assertTrue(((Set<?>) narrow).contains(Integer.class), "through the narrower method: " + narrow);
        JaxrsBridge.install(new JaxrsHandler() {
            @Override public Object withAgentFilter(Object app, Object classes) { return new java.util.LinkedHashSet<Object>((Set<?>) classes); }
            @Override public void registerAgentFilter(Object resourceConfig) { }
            @Override public void request(JaxrsAccessor jaxrs, Object requestContext, Object resourceInfo) { }
            @Override public void response(JaxrsAccessor jaxrs, Object requestContext, Object responseContext) { }
            @Override public void aroundWrite(JaxrsAccessor jaxrs, Object writerContext) { }
        });
        Object unchanged = application.getClass().getMethod("getClasses").invoke(application);
        assertEquals(java.util.Collections.singleton(String.class), unchanged, "a result of the wrong type is no fault of the application's");
    }

    @Test
    void everyResourceConfigTheApplicationBuildsRegistersTheAgentsFilter() throws Exception {
        List<Object> registered = new ArrayList<>();
        JaxrsBridge.install(new AddingJaxrsHandler() {
            @Override
            public void registerAgentFilter(Object resourceConfig) {
                registered.add(resourceConfig);
            }
        });
        ClassLoader test = getClass().getClassLoader();
        String resourceConfig = "org.glassfish.jersey.server.ResourceConfig";
        // Jersey's own classes defined together (package access), the woven ResourceConfig among them
        ClassLoader jersey = new ClassLoader(test) {
            @Override
            protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
                if (!className.startsWith("org.glassfish.")) return super.loadClass(className, resolve);
                synchronized (getClassLoadingLock(className)) {
                    Class<?> loaded = findLoadedClass(className);
                    if (loaded != null) return loaded;
                    try {
                        byte[] bytes = readClass(test, className);
                        if (className.equals(resourceConfig)) bytes = StartUpTransformer.weave(test, resourceConfig.replace('.', '/'), bytes);
                        return defineClass(className, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(className, e);
                    }
                }
            }
        };
        Object config = jersey.loadClass(resourceConfig).getConstructor().newInstance();
        assertEquals(1, registered.size());
        assertSame(config, registered.get(0));
        Object another = jersey.loadClass(resourceConfig).getConstructor(Class[].class).newInstance((Object) new Class<?>[0]);
        assertTrue(registered.size() > 1, "another constructor registers it too");
        assertSame(another, registered.get(registered.size() - 1));
    }

    /** Adds Integer.class in place of the agent's filter. */
    private static class AddingJaxrsHandler implements JaxrsHandler {
        @Override
        public Object withAgentFilter(Object application, Object classes) {
            Set<Object> with = new HashSet<>((Set<?>) classes);
            with.add(Integer.class);
            return with;
        }

        @Override
        public void registerAgentFilter(Object resourceConfig) {
        }

        @Override
        public void request(JaxrsAccessor jaxrs, Object requestContext, Object resourceInfo) {
        }

        @Override
        public void response(JaxrsAccessor jaxrs, Object requestContext, Object responseContext) {
        }

        @Override
        public void aroundWrite(JaxrsAccessor jaxrs, Object writerContext) {
        }
    }

    /** The component woven and defined alone in a loader of its own, as a server's loader would define it. */
    private static <T> T woven(Class<?> component, Class<T> as) throws Exception {
        String name = internalName(component);
        byte[] classFile = StartUpTransformer.weave(StartUpWeavingTest.class.getClassLoader(), name, classFile(component));
        assertTrue(classFile != null, component + " was not woven");
        ClassLoader loader = new ClassLoader(StartUpWeavingTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String className, boolean resolve) throws ClassNotFoundException {
                if (!className.equals(component.getName())) return super.loadClass(className, resolve);
                synchronized (getClassLoadingLock(className)) {
                    Class<?> loaded = findLoadedClass(className);
                    return loaded != null ? loaded : defineClass(className, classFile, 0, classFile.length);
                }
            }
        };
        return as.cast(loader.loadClass(component.getName()).getConstructor().newInstance());
    }

    private static byte[] readClass(ClassLoader loader, String className) throws IOException {
        try (InputStream in = loader.getResourceAsStream(className.replace('.', '/') + ".class")) {
            if (in == null) throw new IOException("no class file for " + className);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            return out.toByteArray();
        }
    }

    private static String internalName(Class<?> type) {
        return type.getName().replace('.', '/');
    }

    private static byte[] classFile(Class<?> type) throws IOException {
        try (InputStream in = type.getClassLoader().getResourceAsStream(internalName(type) + ".class")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buffer = new byte[4096];
            for (int n; (n = in.read(buffer)) > 0; ) out.write(buffer, 0, n);
            return out.toByteArray();
        }
    }

    private static ServletExchange exchange(boolean answered, Object request, Object response) {
        return new ServletExchange() {
            @Override public boolean answered() { return answered; }
            @Override public Object request() { return request; }
            @Override public Object response() { return response; }
        };
    }

    /** A request whose attribute "outcome" is the given value. */
    private static ServletRequest request(String outcome) {
        Map<String, Object> attributes = new HashMap<>();
        if (outcome != null) attributes.put("outcome", outcome);
        return (ServletRequest) Proxy.newProxyInstance(StartUpWeavingTest.class.getClassLoader(), new Class<?>[] {ServletRequest.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("getAttribute")) return attributes.get((String) args[0]);
                    if (method.getName().equals("toString")) return "request@" + System.identityHashCode(proxy);
                    if (method.getName().equals("hashCode")) return System.identityHashCode(proxy);
                    if (method.getName().equals("equals")) return proxy == args[0];
                    return null;
                });
    }

    private static ServletResponse response() {
        return (ServletResponse) Proxy.newProxyInstance(StartUpWeavingTest.class.getClassLoader(), new Class<?>[] {ServletResponse.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("hashCode")) return System.identityHashCode(proxy);
                    if (method.getName().equals("equals")) return proxy == args[0];
                    return null;
                });
    }
}

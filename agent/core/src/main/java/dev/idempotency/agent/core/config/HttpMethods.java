package dev.idempotency.agent.core.config;

import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * The HTTP methods the agent handles. Asked by every filter and servlet of every request, so it compares the request's
 * method with a handful of names instead of hashing it: the container makes a new string of the method for each
 * request, and hashing it cost more than the rest of a keyless request's visit to the agent (a profile of Tomcat under
 * load without keys: 8 of the 20 samples in the agent).
 */
public final class HttpMethods implements Iterable<String> {
    private final String[] names;

    public HttpMethods(List<String> names) {
        this.names = names.toArray(new String[0]);
    }

    public boolean contains(String method) {
        for (String name : names) if (name.equals(method)) return true;
        return false;
    }

    @Override
    public Iterator<String> iterator() {
        return Collections.unmodifiableList(Arrays.asList(names)).iterator();
    }

    @Override
    public String toString() {
        return Arrays.toString(names);
    }
}

package dev.idempotency.agent.core.servlet;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Requests already running when the agent was attached to a live JVM finish as they started: untouched. Their outer
 * filters ran before the attach, so the agent cannot know what they read; taking such a request half way would risk
 * more than leaving it alone. At the attach, every thread inside a servlet or filter is noted; such a thread's next
 * keyed request is new when its first instrumented entry has no other instrumented frame beneath it. The set empties
 * as those requests end, and from then on the check is one volatile read. (A stack deeper than the JVM reports, 1024
 * frames by default, hides its outermost frames: such a request could be taken for a new one.)
 */
public final class RequestsBeforeAttach {
    private final Set<String> instrumentedTypes = ConcurrentHashMap.newKeySet();
    private final Set<Thread> threads = Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<Thread, Boolean>()));
    private volatile boolean any;
    /** Between the start of retransformation and the snapshot: any entry with an instrumented frame beneath is older. */
    private volatile boolean attaching;

    /** Called before retransformation starts: classes switch to instrumented code one by one from then on. */
    public void attaching() {
        attaching = true;
        any = true;
    }

    /** A class whose service/doFilter the agent instrumented. */
    public void instrumented(String typeName) {
        instrumentedTypes.add(typeName);
    }

    /** Notes the threads inside an instrumented servlet or filter right now (called once, after retransformation). */
    public int snapshot() {
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (instrumentedFrames(e.getValue()) > 0) threads.add(e.getKey());
        }
        any = !threads.isEmpty();
        attaching = false;
        return threads.size();
    }

    /** Whether the request being entered on this thread began before the attach (only asked for keyed requests). */
    public boolean isCurrentRequestOlder() {
        if (!any) return false;
        Thread current = Thread.currentThread();
        if (attaching) return instrumentedFrames(current.getStackTrace()) > 1;
        if (!threads.contains(current)) return false;
        // The entry being handled is one instrumented frame; another beneath it was entered before the attach, since
        // any entered after it would have taken the request already.
        if (instrumentedFrames(current.getStackTrace()) > 1) return true;
        threads.remove(current);
        any = !threads.isEmpty();
        return false;
    }

    private int instrumentedFrames(StackTraceElement[] stack) {
        int n = 0;
        for (StackTraceElement frame : stack) {
            String method = frame.getMethodName();
            if (("service".equals(method) || "doFilter".equals(method)) && instrumentedTypes.contains(frame.getClassName())) n++;
        }
        return n;
    }
}

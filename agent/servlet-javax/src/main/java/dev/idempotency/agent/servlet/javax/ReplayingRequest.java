package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.ResponseCapture;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import javax.servlet.AsyncContext;
import javax.servlet.ServletInputStream;
import javax.servlet.ServletRequest;
import javax.servlet.ServletResponse;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;
import javax.servlet.http.HttpServletResponse;

/** Hands the application the body the agent already read, through the stream, the reader and form parameters. */
final class ReplayingRequest extends HttpServletRequestWrapper {
    private final byte[] body;
    private final Map<String, String[]> form;
    private final HttpServletResponse capturingResponse;
    private final ResponseCapture capture;
    private ServletInputStream stream;
    private BufferedReader reader;
    private AsyncContext asyncContext;

    ReplayingRequest(HttpServletRequest request, byte[] body, Map<String, String[]> form, HttpServletResponse capturingResponse,
                     ResponseCapture capture) {
        super(request);
        this.body = body;
        this.form = form;
        this.capturingResponse = capturingResponse;
        this.capture = capture;
    }

    @Override
    public ServletInputStream getInputStream() {
        if (reader != null) throw new IllegalStateException("getReader() has already been called for this request");
        if (stream == null) stream = new ReplayingInputStream(body);
        return stream;
    }

    @Override
    public BufferedReader getReader() throws UnsupportedEncodingException {
        if (stream != null) throw new IllegalStateException("getInputStream() has already been called for this request");
        if (reader == null) {
            String charset = getCharacterEncoding() == null ? "ISO-8859-1" : getCharacterEncoding();
            reader = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body), charset));
        }
        return reader;
    }

    @Override
    public String getParameter(String name) {
        if (form == null) return super.getParameter(name);
        String[] values = form.get(name);
        return values == null || values.length == 0 ? null : values[0];
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        return form == null ? super.getParameterMap() : Collections.unmodifiableMap(form);
    }

    @Override
    public Enumeration<String> getParameterNames() {
        return form == null ? super.getParameterNames() : Collections.enumeration(form.keySet());
    }

    @Override
    public String[] getParameterValues(String name) {
        if (form == null) return super.getParameterValues(name);
        String[] values = form.get(name);
        return values == null ? null : values.clone();
    }

    // Asynchronous cycles must carry the capturing response, and tell the agent before the container ends them.

    @Override
    public AsyncContext startAsync() {
        if (capture == null) return super.startAsync(); // unprotected pass-through: the container's own behaviour
        return startAsync(this, capturingResponse);
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        if (capture == null) return super.startAsync(request, response); // unprotected pass-through
        asyncContext = new CapturingAsyncContext(super.startAsync(request, response), capture);
        return asyncContext;
    }

    @Override
    public AsyncContext getAsyncContext() {
        return asyncContext != null ? asyncContext : super.getAsyncContext();
    }
}

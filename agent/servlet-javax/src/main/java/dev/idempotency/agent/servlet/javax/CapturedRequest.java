package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.CapturedBody;
import dev.idempotency.agent.bootstrap.bridge.CapturedPart;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UnsupportedEncodingException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import javax.servlet.ServletException;
import javax.servlet.ServletInputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletRequestWrapper;
import javax.servlet.http.Part;

/**
 * The request every filter and servlet after the outermost entry sees: its body, parameters and parts come from what
 * the agent read. Parameters are decoded when first asked for, with the request's encoding at that moment, as a
 * container does, so a {@code setCharacterEncoding} by a filter or at the top of {@code doPost} is honoured.
 */
final class CapturedRequest extends HttpServletRequestWrapper {
    private final CapturedBody body;
    private ServletInputStream stream;
    private BufferedReader reader;
    private Map<String, String[]> parameters;
    private boolean parametersRead;
    private List<Part> parts;
    /** Set by the application after the agent read the body: some containers ignore it once the body was read. */
    private String characterEncoding;

    CapturedRequest(HttpServletRequest request, CapturedBody body) {
        super(request);
        this.body = body;
    }

    @Override
    public ServletInputStream getInputStream() {
        if (reader != null) throw new IllegalStateException("getReader() has already been called for this request");
        if (stream == null) stream = new ReplayingInputStream(body.bytes());
        return stream;
    }

    @Override
    public BufferedReader getReader() throws UnsupportedEncodingException {
        if (stream != null) throw new IllegalStateException("getInputStream() has already been called for this request");
        if (reader == null) {
            String charset = getCharacterEncoding() == null ? "ISO-8859-1" : getCharacterEncoding();
            reader = new BufferedReader(new InputStreamReader(new ByteArrayInputStream(body.bytes()), charset));
        }
        return reader;
    }

    @Override
    public void setCharacterEncoding(String encoding) throws UnsupportedEncodingException {
        if (!supported(encoding)) throw new UnsupportedEncodingException(encoding);
        if (parametersRead || reader != null) return; // as a container: too late once the body was decoded
        characterEncoding = encoding;
        try {
            super.setCharacterEncoding(encoding);
        } catch (UnsupportedEncodingException | RuntimeException ignored) {
            // the container's request no longer takes it; this request answers with it all the same
        }
    }

    private static boolean supported(String encoding) {
        try {
            return encoding != null && java.nio.charset.Charset.isSupported(encoding);
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public String getCharacterEncoding() {
        return characterEncoding != null ? characterEncoding : super.getCharacterEncoding();
    }

    /** Null when the container's own parameters apply (a body that is neither a form nor multipart). */
    private Map<String, String[]> parameters() {
        if (!parametersRead) {
            Map<String, String[]> decoded = body.parameters(getCharacterEncoding());
            parameters = decoded == null ? null : Collections.unmodifiableMap(decoded);
            parametersRead = true;
        }
        return parameters;
    }

    @Override
    public String getParameter(String name) {
        Map<String, String[]> p = parameters();
        if (p == null) return super.getParameter(name);
        String[] values = p.get(name);
        return values == null || values.length == 0 ? null : values[0];
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        Map<String, String[]> p = parameters();
        return p == null ? super.getParameterMap() : p;
    }

    @Override
    public Enumeration<String> getParameterNames() {
        Map<String, String[]> p = parameters();
        return p == null ? super.getParameterNames() : Collections.enumeration(p.keySet());
    }

    @Override
    public String[] getParameterValues(String name) {
        Map<String, String[]> p = parameters();
        if (p == null) return super.getParameterValues(name);
        String[] values = p.get(name);
        return values == null ? null : values.clone();
    }

    @Override
    public Collection<Part> getParts() throws IOException, ServletException {
        List<CapturedPart> captured = body.parts();
        if (captured == null) return super.getParts();
        if (parts == null) {
            List<Part> views = new ArrayList<>(captured.size());
            for (CapturedPart part : captured) views.add(new CapturedPartView(part, getServletContext()));
            parts = Collections.unmodifiableList(views);
        }
        return parts;
    }

    @Override
    public Part getPart(String name) throws IOException, ServletException {
        if (body.parts() == null) return super.getPart(name);
        for (Part part : getParts()) if (part.getName().equals(name)) return part;
        return null;
    }
}

package dev.idempotency.agent.servlet.javax;

import dev.idempotency.agent.bootstrap.bridge.CapturedPart;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import javax.servlet.ServletContext;
import javax.servlet.http.Part;

/** A part of a captured multipart body, as the servlet API presents it. */
final class CapturedPartView implements Part {
    private final CapturedPart part;
    private final ServletContext context;

    CapturedPartView(CapturedPart part, ServletContext context) {
        this.part = part;
        this.context = context;
    }

    @Override public InputStream getInputStream() { return part.open(); }

    @Override public String getContentType() { return part.contentType(); }

    @Override public String getName() { return part.name(); }

    @Override public String getSubmittedFileName() { return part.fileName(); }

    @Override public long getSize() { return part.size(); }

    /** A relative name is resolved against the web application's temporary directory, like a container's location. */
    @Override
    public void write(String fileName) throws IOException {
        File target = new File(fileName);
        if (!target.isAbsolute() && context != null && context.getAttribute(ServletContext.TEMPDIR) instanceof File) {
            target = new File((File) context.getAttribute(ServletContext.TEMPDIR), fileName);
        }
        try (InputStream in = part.open()) {
            Files.copy(in, target.toPath(), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Nothing to delete: the part lives in memory. */
    @Override public void delete() { }

    @Override
    public String getHeader(String name) {
        for (String[] h : part.headers()) if (h[0].equalsIgnoreCase(name)) return h[1];
        return null;
    }

    @Override
    public Collection<String> getHeaders(String name) {
        List<String> values = new ArrayList<>();
        for (String[] h : part.headers()) if (h[0].equalsIgnoreCase(name)) values.add(h[1]);
        return values;
    }

    @Override
    public Collection<String> getHeaderNames() {
        List<String> names = new ArrayList<>();
        for (String[] h : part.headers()) if (!names.contains(h[0])) names.add(h[0]);
        return names;
    }
}

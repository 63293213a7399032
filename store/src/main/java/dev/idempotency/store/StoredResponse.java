package dev.idempotency.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/** A response as it is kept for replay: status, headers in order (repeats allowed), body as raw bytes. */
public final class StoredResponse {
    private final int status;
    private final List<Header> headers;
    private final byte[] body;

    public StoredResponse(int status, List<Header> headers, byte[] body) {
        if (status < 100 || status > 999) throw new IllegalArgumentException("HTTP status out of range: " + status);
        this.status = status;
        this.headers = Collections.unmodifiableList(new ArrayList<>(Objects.requireNonNull(headers, "headers")));
        this.body = Objects.requireNonNull(body, "body").clone();
    }

    public int status() { return status; }
    public List<Header> headers() { return headers; }
    public byte[] body() { return body.clone(); }
    public int bodyLength() { return body.length; }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof StoredResponse)) return false;
        StoredResponse other = (StoredResponse) o;
        return status == other.status && headers.equals(other.headers) && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() { return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body); }

    @Override
    public String toString() { return "StoredResponse[" + status + ", " + headers.size() + " headers, " + body.length + " bytes]"; }

    /** One header field; names keep the case the application used. */
    public static final class Header {
        private final String name;
        private final String value;

        public Header(String name, String value) {
            this.name = Objects.requireNonNull(name, "name");
            this.value = Objects.requireNonNull(value, "value");
        }

        public String name() { return name; }
        public String value() { return value; }

        @Override
        public boolean equals(Object o) {
            return o instanceof Header && name.equals(((Header) o).name) && value.equals(((Header) o).value);
        }

        @Override
        public int hashCode() { return 31 * name.hashCode() + value.hashCode(); }

        @Override
        public String toString() { return name + ": " + value; }
    }
}

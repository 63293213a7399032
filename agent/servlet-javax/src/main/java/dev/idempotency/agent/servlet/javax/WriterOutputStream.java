package dev.idempotency.agent.servlet.javax;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;

/**
 * Bytes the application's writer encoded, written to the container's writer: where the application took a writer,
 * the container's was taken too (so that the container names and locks the charset by its own rules), and a response
 * that has a writer gives no output stream. Decoding with the same charset gives back the characters, whose encoding
 * by the container's writer is the same bytes. A sequence split across writes is kept until its end comes.
 */
final class WriterOutputStream extends OutputStream {
    private final Writer writer;
    private final CharsetDecoder decoder;
    private final ByteBuffer pending = ByteBuffer.allocate(16);
    private final CharBuffer chars = CharBuffer.allocate(8192);

    WriterOutputStream(Writer writer, String charset) {
        this.writer = writer;
        this.decoder = Charset.forName(charset).newDecoder().onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        ByteBuffer in = ByteBuffer.wrap(bytes, offset, length);
        while (pending.position() > 0 && in.hasRemaining()) { // complete a sequence split by the previous write
            pending.put(in.get());
            pending.flip();
            decode(pending, false);
            pending.compact();
        }
        decode(in, false);
        while (in.hasRemaining()) pending.put(in.get());
    }

    private void decode(ByteBuffer in, boolean last) throws IOException {
        while (true) {
            CoderResult result = decoder.decode(in, chars, last);
            drain();
            if (!result.isOverflow()) return;
        }
    }

    private void drain() throws IOException {
        chars.flip();
        writer.write(chars.array(), chars.arrayOffset() + chars.position(), chars.remaining());
        chars.clear();
    }

    @Override
    public void flush() throws IOException {
        writer.flush();
    }

    @Override
    public void close() throws IOException {
        pending.flip();
        decode(pending, true);
        decoder.flush(chars);
        drain();
        writer.flush();
    }
}

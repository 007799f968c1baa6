package org.rockcask.flink.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.annotation.Internal;

/**
 * The framing the connector's state serializers share: one supported version, data streams both
 * ways, and strings as length-prefixed UTF-8 (queue names and paths may exceed what
 * {@code writeUTF} carries).
 */
@Internal
public final class VersionedData {
    @Internal
    public interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    @Internal
    public interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    private VersionedData() {}

    public static byte[] write(Writer body) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            body.write(out);
        }
        return bytes.toByteArray();
    }

    /**
     * Reads {@code serialized} of {@code version} with {@code body}.
     *
     * @throws IOException naming the version when it is not {@code supported}, or when bytes are
     *     left over (the data is not what this version wrote)
     */
    public static <T> T read(String what, int supported, int version, byte[] serialized, Reader<T> body) throws IOException {
        if (version != supported) {
            throw new IOException("cannot read " + what + " of serializer version " + version + ": this build reads version " + supported);
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(serialized))) {
            T value = body.read(in);
            if (in.available() > 0) {
                throw new IOException(what + " of version " + version + " has " + in.available() + " bytes beyond its end");
            }
            return value;
        }
    }

    public static void writeString(DataOutput out, String s) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** @throws IOException when the length is negative ({@code what} names the string) or runs past the end */
    public static String readString(DataInput in, String what) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            throw new IOException("corrupt " + what + ": negative length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

package org.rockcask.flink.sink;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/** The framing the connector's state serializers share: one supported version, data streams both ways. */
public final class VersionedData {
    public interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

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
}

package org.rockcask.flink.source;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Length-prefixed UTF-8 strings for the serializers (queue names may exceed writeUTF's 64 KiB). */
final class BinaryFields {
    private BinaryFields() {}

    static void writeString(DataOutput out, String s) throws IOException {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    static String readString(DataInput in, String what) throws IOException {
        int length = in.readInt();
        if (length < 0) {
            throw new IOException("corrupt " + what + ": negative length " + length);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

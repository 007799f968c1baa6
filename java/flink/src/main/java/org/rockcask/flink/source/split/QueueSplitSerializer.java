package org.rockcask.flink.source.split;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.internal.VersionedData;

/** Version 1: queue, host, then the skip ranges as a count and first/last pairs. */
@Internal
public final class QueueSplitSerializer implements SimpleVersionedSerializer<QueueSplit> {
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(QueueSplit split) throws IOException {
        return VersionedData.write(out -> write(out, split));
    }

    @Override
    public QueueSplit deserialize(int version, byte[] serialized) throws IOException {
        return VersionedData.read("a RockCask queue split", VERSION, version, serialized, QueueSplitSerializer::read);
    }

    /** Writes {@code split} without a version: the enumerator's state embeds its unassigned splits so. */
    public static void write(DataOutput out, QueueSplit split) throws IOException {
        VersionedData.writeString(out, split.queue());
        VersionedData.writeString(out, split.host());
        long[] pairs = split.skip().toPairs();
        out.writeInt(pairs.length / 2);
        for (long bound : pairs) {
            out.writeLong(bound);
        }
    }

    /** Reads a split {@link #write} wrote. */
    public static QueueSplit read(DataInput in) throws IOException {
        String queue = VersionedData.readString(in, "queue split name");
        String host = VersionedData.readString(in, "queue split host");
        int ranges = in.readInt();
        if (ranges < 0) {
            throw new IOException("corrupt queue split " + queue + ": negative range count " + ranges);
        }
        long[] pairs = new long[2 * ranges];
        for (int i = 0; i < pairs.length; i++) {
            pairs[i] = in.readLong();
        }
        try {
            return new QueueSplit(queue, host, SequenceRanges.of(pairs));
        } catch (IllegalArgumentException e) {
            throw new IOException("corrupt queue split " + queue + ": " + e.getMessage(), e);
        }
    }
}

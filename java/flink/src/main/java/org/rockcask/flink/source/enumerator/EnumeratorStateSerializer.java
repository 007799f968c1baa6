package org.rockcask.flink.source.enumerator;

import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.internal.VersionedData;
import org.rockcask.flink.source.split.QueueSplit;
import org.rockcask.flink.source.split.QueueSplitSerializer;

/** Version 1: the known (host, queue) pairs, then the unassigned splits as the split serializer writes them. */
@Internal
public final class EnumeratorStateSerializer implements SimpleVersionedSerializer<EnumeratorState> {
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(EnumeratorState state) throws IOException {
        return VersionedData.write(out -> {
            out.writeInt(state.known().size());
            for (SplitKey key : state.known()) {
                VersionedData.writeString(out, key.host());
                VersionedData.writeString(out, key.queue());
            }
            out.writeInt(state.unassigned().size());
            for (QueueSplit split : state.unassigned()) {
                QueueSplitSerializer.write(out, split);
            }
        });
    }

    @Override
    public EnumeratorState deserialize(int version, byte[] serialized) throws IOException {
        return VersionedData.read("the RockCask source enumerator state", VERSION, version, serialized, in -> {
            int knownCount = count(in, "known splits");
            Set<SplitKey> known = new LinkedHashSet<>();
            for (int i = 0; i < knownCount; i++) {
                String host = VersionedData.readString(in, "known split host");
                known.add(new SplitKey(host, VersionedData.readString(in, "known split queue")));
            }
            int unassignedCount = count(in, "unassigned splits");
            List<QueueSplit> unassigned = new ArrayList<>();
            for (int i = 0; i < unassignedCount; i++) {
                unassigned.add(QueueSplitSerializer.read(in));
            }
            return new EnumeratorState(known, unassigned);
        });
    }

    private static int count(DataInputStream in, String what) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("corrupt RockCask source enumerator state: negative count of " + what + ": " + n);
        }
        return n;
    }
}

package org.rockcask.flink.sink.internal;

import java.io.IOException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.internal.VersionedData;

/** Version 1: host, store path, staging queue, target queue (length-prefixed UTF-8 strings), record count (long). */
@Internal
public final class RockCaskCommittableSerializer implements SimpleVersionedSerializer<RockCaskCommittable> {
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(RockCaskCommittable c) throws IOException {
        return VersionedData.write(out -> {
            VersionedData.writeString(out, c.host());
            VersionedData.writeString(out, c.storePath());
            VersionedData.writeString(out, c.stagingQueue());
            VersionedData.writeString(out, c.targetQueue());
            out.writeLong(c.records());
        });
    }

    @Override
    public RockCaskCommittable deserialize(int version, byte[] serialized) throws IOException {
        return VersionedData.read("a RockCask committable", VERSION, version, serialized,
                in -> new RockCaskCommittable(VersionedData.readString(in, "committable host"), VersionedData.readString(in, "committable store path"),
                        VersionedData.readString(in, "committable staging queue"), VersionedData.readString(in, "committable target queue"), in.readLong()));
    }
}

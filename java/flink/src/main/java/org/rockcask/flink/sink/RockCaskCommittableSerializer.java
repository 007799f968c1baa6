package org.rockcask.flink.sink;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;

/** Version 1: host, store path, staging queue, target queue (modified UTF-8), record count (long). */
public final class RockCaskCommittableSerializer implements SimpleVersionedSerializer<RockCaskCommittable> {
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(RockCaskCommittable c) throws IOException {
        return VersionedData.write(out -> {
            out.writeUTF(c.host());
            out.writeUTF(c.storePath());
            out.writeUTF(c.stagingQueue());
            out.writeUTF(c.targetQueue());
            out.writeLong(c.records());
        });
    }

    @Override
    public RockCaskCommittable deserialize(int version, byte[] serialized) throws IOException {
        return VersionedData.read("a RockCask committable", VERSION, version, serialized,
                in -> new RockCaskCommittable(in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF(), in.readLong()));
    }
}

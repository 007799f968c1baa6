package org.rockcask.flink.sink;

import java.io.IOException;
import org.apache.flink.core.io.SimpleVersionedSerializer;
import org.rockcask.flink.internal.VersionedData;

/** The sink writer's state, its lineage. Version 1: the lineage as a length-prefixed UTF-8 string. */
final class LineageSerializer implements SimpleVersionedSerializer<String> {
    static final int VERSION = 1;

    @Override
    public int getVersion() {
        return VERSION;
    }

    @Override
    public byte[] serialize(String lineage) throws IOException {
        return VersionedData.write(out -> VersionedData.writeString(out, lineage));
    }

    @Override
    public String deserialize(int version, byte[] serialized) throws IOException {
        return VersionedData.read("a RockCask sink writer state", VERSION, version, serialized, in -> VersionedData.readString(in, "lineage"));
    }
}

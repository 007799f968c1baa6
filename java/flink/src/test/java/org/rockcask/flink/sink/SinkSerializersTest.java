package org.rockcask.flink.sink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.Arrays;
import org.junit.Test;
import org.rockcask.flink.sink.internal.RockCaskCommittable;
import org.rockcask.flink.sink.internal.RockCaskCommittableSerializer;

public class SinkSerializersTest {
    private final RockCaskCommittable committable = new RockCaskCommittable("host-ä", "/data/cask", "out.staging/" + "a".repeat(32) + "/3/17",
            "out", 4321);

    @Test
    public void aCommittableSurvivesARoundTrip() throws IOException {
        RockCaskCommittableSerializer s = new RockCaskCommittableSerializer();
        assertEquals(committable, s.deserialize(s.getVersion(), s.serialize(committable)));
    }

    @Test
    public void aLineageSurvivesARoundTrip() throws IOException {
        LineageSerializer s = new LineageSerializer();
        String lineage = "0123456789abcdef0123456789abcdef";
        assertEquals(lineage, s.deserialize(s.getVersion(), s.serialize(lineage)));
    }

    @Test
    public void aCommittableOfAnUnknownVersionFailsNamingTheVersion() throws IOException {
        RockCaskCommittableSerializer s = new RockCaskCommittableSerializer();
        expectVersionNamed(() -> s.deserialize(7, s.serialize(committable)), 7);
    }

    @Test
    public void aLineageOfAnUnknownVersionFailsNamingTheVersion() throws IOException {
        LineageSerializer s = new LineageSerializer();
        expectVersionNamed(() -> s.deserialize(0, s.serialize("x")), 0);
    }

    @Test
    public void trailingBytesAfterACommittableAreRejected() throws IOException {
        RockCaskCommittableSerializer s = new RockCaskCommittableSerializer();
        byte[] bytes = s.serialize(committable);
        try {
            s.deserialize(s.getVersion(), Arrays.copyOf(bytes, bytes.length + 2));
            fail("a committable with two extra bytes was read");
        } catch (IOException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("2 bytes beyond its end"));
        }
    }

    @Test
    public void aTruncatedCommittableIsRejected() throws IOException {
        RockCaskCommittableSerializer s = new RockCaskCommittableSerializer();
        byte[] bytes = s.serialize(committable);
        try {
            s.deserialize(s.getVersion(), Arrays.copyOf(bytes, bytes.length - 1));
            fail("a truncated committable was read");
        } catch (IOException expected) {
            // EOFException
        }
    }

    private interface Read {
        Object run() throws IOException;
    }

    private static void expectVersionNamed(Read read, int version) {
        try {
            read.run();
            fail("version " + version + " was read");
        } catch (IOException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("serializer version " + version));
        }
    }
}

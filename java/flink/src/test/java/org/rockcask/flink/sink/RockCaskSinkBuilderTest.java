package org.rockcask.flink.sink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.junit.Test;
import org.rockcask.Store;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.internal.StagingQueues;

public class RockCaskSinkBuilderTest {
    @Test
    public void aSinkWithoutStoreAndTargetNamesBothMissing() {
        try {
            RockCaskSink.<String>builder().serializer(new SimpleStringSchema()).build();
            fail("a sink without a store was built");
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().endsWith("missing: store, targetQueue"));
        }
    }

    @Test
    public void batchBoundsAreCheckedWhenSet() {
        expectRejected(() -> RockCaskSink.<String>builder().stagingCommitBatch(0, 1 << 20), "staging batch records");
        expectRejected(() -> RockCaskSink.<String>builder().stagingCommitBatch((1 << 20) + 1, 1 << 20), "staging batch records");
        expectRejected(() -> RockCaskSink.<String>builder().stagingCommitBatch(10, 1023), "staging batch bytes");
        expectRejected(() -> RockCaskSink.<String>builder().stagingCommitBatch(10, (1L << 30) + 1), "staging batch bytes");
        RockCaskSink.<String>builder().stagingCommitBatch(1 << 20, 1L << 30);
        RockCaskSink.<String>builder().stagingCommitBatch(1, 1024);
    }

    @Test
    public void aTargetTooLongForItsStagingNamesIsRejected() {
        String tooLong = "q".repeat(Store.MAX_QUEUE_NAME_BYTES - StagingQueues.MAX_SUFFIX_BYTES + 1);
        expectRejected(() -> RockCaskSink.<String>builder().targetQueue(tooLong), "is too long");
        expectRejected(() -> RockCaskSink.<String>builder().targetQueue(""), "must not be empty");
    }

    @Test
    public void aBuiltSinkKeepsItsStoreAndTarget() {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at("/data/cask");
        RockCaskSink<String> sink = RockCaskSink.<String>builder().store(spec).targetQueue("out").serializer(new SimpleStringSchema())
                .build();
        assertEquals(spec, sink.store());
        assertEquals("out", sink.targetQueue());
    }

    private static void expectRejected(Runnable set, String named) {
        try {
            set.run();
            fail("accepted what should name " + named);
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains(named));
        }
    }
}

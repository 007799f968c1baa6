package org.rockcask.flink.source.split;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import org.junit.Test;

public class QueueSplitSerializerTest {
    private final QueueSplitSerializer splits = new QueueSplitSerializer();

    @Test
    public void aSplitWithSkipRangesSurvivesTheRoundTrip() throws IOException {
        QueueSplit split = new QueueSplit("orders/ü", "host-a", SequenceRanges.of(0, 4, 7, 7, 1L << 40, (1L << 40) + 3));
        assertEquals(split, splits.deserialize(splits.getVersion(), splits.serialize(split)));
    }

    @Test
    public void anUnknownSplitVersionFailsNamingIt() throws IOException {
        byte[] bytes = splits.serialize(QueueSplit.fresh("q", "h"));
        try {
            splits.deserialize(7, bytes);
            fail("version 7 accepted");
        } catch (IOException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("version 7") && expected.getMessage().contains("split"));
        }
    }

    @Test
    public void damagedRangesAreReportedAsACorruptSplit() throws IOException {
        QueueSplit split = new QueueSplit("q", "h", SequenceRanges.of(1, 2, 5, 6));
        byte[] bytes = splits.serialize(split);
        // The last bound (6) becomes 0: the range [5, 0] is empty.
        bytes[bytes.length - 1] = 0;
        try {
            splits.deserialize(splits.getVersion(), bytes);
            fail("damaged ranges accepted");
        } catch (IOException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("corrupt queue split q"));
        }
    }
}

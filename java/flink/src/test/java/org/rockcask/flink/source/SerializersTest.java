package org.rockcask.flink.source;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import org.junit.Test;

public class SerializersTest {
    private final QueueSplitSerializer splits = new QueueSplitSerializer();
    private final EnumeratorStateSerializer states = new EnumeratorStateSerializer();

    @Test
    public void aSplitWithSkipRangesSurvivesTheRoundTrip() throws IOException {
        QueueSplit split = new QueueSplit("orders/ü", "host-a", SequenceRanges.of(0, 4, 7, 7, 1L << 40, (1L << 40) + 3));
        assertEquals(split, splits.deserialize(splits.getVersion(), splits.serialize(split)));
    }

    @Test
    public void anEnumeratorStateSurvivesTheRoundTrip() throws IOException {
        EnumeratorState state = new EnumeratorState(new LinkedHashSet<>(Arrays.asList(new SplitKey("h1", "a"), new SplitKey("h2", "a"))),
                Collections.singletonList(QueueSplit.fresh("a", "h2")));
        assertEquals(state, states.deserialize(states.getVersion(), states.serialize(state)));
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
    public void anUnknownEnumeratorStateVersionFailsNamingIt() throws IOException {
        byte[] bytes = states.serialize(new EnumeratorState(Collections.emptySet(), Collections.emptyList()));
        try {
            states.deserialize(2, bytes);
            fail("version 2 accepted");
        } catch (IOException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("version 2") && expected.getMessage().contains("enumerator state"));
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

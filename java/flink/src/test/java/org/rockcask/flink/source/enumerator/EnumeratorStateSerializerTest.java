package org.rockcask.flink.source.enumerator;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import org.junit.Test;
import org.rockcask.flink.source.split.QueueSplit;

public class EnumeratorStateSerializerTest {
    private final EnumeratorStateSerializer states = new EnumeratorStateSerializer();

    @Test
    public void anEnumeratorStateSurvivesTheRoundTrip() throws IOException {
        EnumeratorState state = new EnumeratorState(new LinkedHashSet<>(Arrays.asList(new SplitKey("h1", "a"), new SplitKey("h2", "a"))),
                Collections.singletonList(QueueSplit.fresh("a", "h2")));
        assertEquals(state, states.deserialize(states.getVersion(), states.serialize(state)));
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
}

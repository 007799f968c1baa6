package org.rockcask.flink.source;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.time.Duration;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.connector.source.Boundedness;
import org.junit.Test;
import org.rockcask.flink.RockCaskStoreSpec;

public class RockCaskSourceBuilderTest {
    private static RockCaskSourceBuilder<String> complete() {
        return RockCaskSource.<String>builder().store(RockCaskStoreSpec.at("/tmp/unused")).queues("q").deserializer(new SimpleStringSchema());
    }

    @Test
    public void aSourceIsContinuousUnlessAskedToBeBounded() {
        assertEquals(Boundedness.CONTINUOUS_UNBOUNDED, complete().build().getBoundedness());
        assertEquals(Boundedness.BOUNDED, complete().bounded().build().getBoundedness());
        assertEquals(Boundedness.CONTINUOUS_UNBOUNDED, complete().bounded().continuous().build().getBoundedness());
    }

    @Test
    public void eachMissingRequirementIsNamed() {
        expectState(RockCaskSource.<String>builder().queues("q").deserializer(new SimpleStringSchema()), "store");
        expectState(RockCaskSource.<String>builder().store(RockCaskStoreSpec.at("/tmp/unused")).deserializer(new SimpleStringSchema()), "queues");
        expectState(RockCaskSource.<String>builder().store(RockCaskStoreSpec.at("/tmp/unused")).queuePrefix("p"), "deserializer");
    }

    @Test
    public void pollBatchSizeUncommittedEntriesAndDiscoveryIntervalAreCheckedAtTheirBounds() {
        complete().pollBatchSize(1).pollBatchSize(RockCaskSourceBuilder.MAX_POLL_BATCH_SIZE);
        complete().maxUncommittedEntries(1).maxUncommittedEntries(Integer.MAX_VALUE).build();
        expectArgument(() -> complete().maxUncommittedEntries(0), "maxUncommittedEntries");
        expectArgument(() -> complete().maxUncommittedEntries(-1), "maxUncommittedEntries");
        complete().discoveryInterval(RockCaskSourceBuilder.MIN_DISCOVERY_INTERVAL).discoveryInterval(RockCaskSourceBuilder.MAX_DISCOVERY_INTERVAL);
        expectArgument(() -> complete().pollBatchSize(0), "poll batch size");
        expectArgument(() -> complete().pollBatchSize(RockCaskSourceBuilder.MAX_POLL_BATCH_SIZE + 1), "poll batch size");
        expectArgument(() -> complete().discoveryInterval(Duration.ofMillis(9)), "discovery interval");
        expectArgument(() -> complete().discoveryInterval(Duration.ofDays(1).plusMillis(1)), "discovery interval");
    }

    @Test
    public void emptyOrNullQueueNamesAreRefused() {
        expectArgument(() -> complete().queues(), "at least one queue");
        expectArgument(() -> complete().queues("a", ""), "queue name 1");
        expectArgument(() -> complete().queues("a", null), "queue name 1");
    }

    private static void expectState(RockCaskSourceBuilder<String> builder, String missing) {
        try {
            builder.build();
            fail("built without " + missing);
        } catch (IllegalStateException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains(missing));
        }
    }

    private static void expectArgument(Runnable call, String named) {
        try {
            call.run();
            fail("accepted: expected a complaint about " + named);
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains(named));
        }
    }
}

package org.rockcask.flink.sink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Optional;
import org.junit.Test;

public class StagingQueuesTest {
    private static final String LINEAGE = "0123456789abcdef0123456789abcdef";

    @Test
    public void aNameHasTheDocumentedLayout() {
        assertEquals("a/b.staging/" + LINEAGE + "/12/345", StagingQueues.name("a/b", LINEAGE, 12, 345));
    }

    @Test
    public void aNameParsesBackToItsSubtaskAndEpoch() {
        String prefix = StagingQueues.lineagePrefix("a/b", LINEAGE);
        Optional<StagingQueues.Slot> slot = StagingQueues.parse(prefix, StagingQueues.name("a/b", LINEAGE, 12, Long.MAX_VALUE));
        assertTrue(slot.isPresent());
        assertEquals(12, slot.get().subtask);
        assertEquals(Long.MAX_VALUE, slot.get().epoch);
    }

    @Test
    public void namesWithoutTheStagingLayoutAreNotParsed() {
        String prefix = StagingQueues.lineagePrefix("out", LINEAGE);
        assertFalse(StagingQueues.parse(prefix, "out").isPresent());
        assertFalse(StagingQueues.parse(prefix, prefix + "3").isPresent());
        assertFalse(StagingQueues.parse(prefix, prefix + "3/x").isPresent());
        assertFalse(StagingQueues.parse(prefix, prefix + "3/4/5").isPresent());
        assertFalse(StagingQueues.parse(prefix, prefix + "/4").isPresent());
    }

    @Test
    public void theLongestFittingTargetStillGivesValidStagingNames() {
        String longest = "q".repeat(StagingQueues.MAX_QUEUE_NAME_BYTES - StagingQueues.MAX_SUFFIX_BYTES);
        assertTrue(StagingQueues.fits(longest));
        assertFalse(StagingQueues.fits(longest + "q"));
        String name = StagingQueues.name(longest, LINEAGE, Integer.MAX_VALUE, Long.MAX_VALUE);
        assertTrue(name.length() <= StagingQueues.MAX_QUEUE_NAME_BYTES);
    }

    @Test
    public void everySubtaskOfAnyLaterParallelismReceivesTheLineage() {
        // Flink hands each of p subtasks total / p list entries (or one more): at least one as
        // long as the total reaches p, and p never exceeds the max parallelism.
        for (int parallelism : new int[] {1, 3, 4, 7, 128}) {
            int total = parallelism * RockCaskWriter.stateCopies(128, parallelism);
            assertTrue(parallelism + " writers keep " + total + " copies", total >= 128);
        }
    }
}

package org.rockcask.flink.sink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.junit.Test;
import org.rockcask.flink.internal.StagingQueues;

public class RockCaskWriterTest {
    @Test
    public void aFreshLineageIsTheSameForOneSinkOfOneJobAndDiffersForAnotherSinkOrJob() {
        JobID job = new JobID();
        UUID sink = UUID.randomUUID();
        String lineage = RockCaskWriter.freshLineage(job, sink);
        assertTrue(lineage, lineage.matches("[0-9a-f]{32}"));
        assertEquals(lineage, RockCaskWriter.freshLineage(job, sink));
        assertFalse(lineage.equals(RockCaskWriter.freshLineage(job, UUID.randomUUID())));
        assertFalse(lineage.equals(RockCaskWriter.freshLineage(new JobID(), sink)));
        assertEquals(lineage, StagingQueues.parse(StagingQueues.name("out", lineage, 0, 1)).get().lineage);
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

    @Test
    public void theRestoreLogNamesEveryStagingQueueDroppedAndLeftForTheCommitterWithItsRecords() {
        String lineage = RockCaskWriter.freshLineage(new JobID(), UUID.randomUUID());
        Map<String, Long> dropped = new TreeMap<>();
        dropped.put(StagingQueues.name("out", lineage, 0, 8), 12L);
        dropped.put(StagingQueues.name("out", lineage, 3, 8), 1L);
        Map<String, Long> kept = Collections.singletonMap(StagingQueues.name("out", lineage, 0, 7), 40L);
        assertEquals("restored checkpoint 7; dropped 2 staging queues (" + StagingQueues.name("out", lineage, 0, 8) + ": 12 records, "
                + StagingQueues.name("out", lineage, 3, 8) + ": 1 record); left to the committer to commit 1 staging queue ("
                + StagingQueues.name("out", lineage, 0, 7) + ": 40 records)", RockCaskWriter.restoreReport(7, dropped, kept));
        assertEquals("restored checkpoint 7; dropped no staging queue; left to the committer to commit no staging queue",
                RockCaskWriter.restoreReport(7, Collections.emptyMap(), Collections.emptyMap()));
    }
}

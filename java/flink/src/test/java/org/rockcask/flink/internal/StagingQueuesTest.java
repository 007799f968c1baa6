package org.rockcask.flink.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Optional;
import org.junit.Test;
import org.rockcask.Store;

public class StagingQueuesTest {
    private static final String LINEAGE = "0123456789abcdef0123456789abcdef";

    @Test
    public void aNameHasTheDocumentedLayout() {
        assertEquals("a/b.staging/" + LINEAGE + "/12/345", StagingQueues.name("a/b", LINEAGE, 12, 345));
    }

    @Test
    public void aNameParsesBackToItsSubtaskAndEpoch() {
        Optional<StagingQueues.Slot> slot = StagingQueues.parse(StagingQueues.name("a/b", LINEAGE, 12, Long.MAX_VALUE));
        assertTrue(slot.isPresent());
        assertEquals("a/b", slot.get().target);
        assertEquals(LINEAGE, slot.get().lineage);
        assertEquals(12, slot.get().subtask);
        assertEquals(Long.MAX_VALUE, slot.get().epoch);
    }

    @Test
    public void namesWithoutTheStagingLayoutAreNotParsed() {
        String prefix = StagingQueues.lineagePrefix("out", LINEAGE);
        assertFalse(StagingQueues.parse("out").isPresent());
        assertFalse(StagingQueues.parse(prefix + "3").isPresent());
        assertFalse(StagingQueues.parse(prefix + "3/x").isPresent());
        assertFalse(StagingQueues.parse(prefix + "3/4/5").isPresent());
        assertFalse(StagingQueues.parse(prefix + "/4").isPresent());
    }

    /** The command-line tool reads the same vectors (rust/cli/src/staging.rs). */
    @Test
    public void namesFormatAndParseAsTheSharedGoldenVectorsSay() throws IOException {
        Path vectors = Paths.get(System.getProperty("rockcask.test.goldenDir"), "staging-queue-names.tsv");
        int checked = 0;
        for (String line : Files.readAllLines(vectors, StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] cols = line.split("\t");
            Optional<StagingQueues.Slot> slot = StagingQueues.parse(cols[0]);
            if (cols[1].equals("invalid")) {
                assertFalse(line, slot.isPresent());
            } else {
                assertTrue(line, slot.isPresent());
                assertEquals(line, Arrays.asList(cols[1], cols[2], cols[3], cols[4]),
                        Arrays.asList(slot.get().target, slot.get().lineage, String.valueOf(slot.get().subtask), String.valueOf(slot.get().epoch)));
                assertEquals(cols[0], StagingQueues.name(cols[1], cols[2], Integer.parseInt(cols[3]), Long.parseLong(cols[4])));
            }
            checked++;
        }
        assertTrue("the vectors were read", checked >= 10);
    }

    @Test
    public void theLongestFittingTargetStillGivesValidStagingNames() {
        String longest = "q".repeat(Store.MAX_QUEUE_NAME_BYTES - StagingQueues.MAX_SUFFIX_BYTES);
        assertTrue(StagingQueues.fits(longest));
        assertFalse(StagingQueues.fits(longest + "q"));
        String name = StagingQueues.name(longest, LINEAGE, Integer.MAX_VALUE, Long.MAX_VALUE);
        assertTrue(name.length() <= Store.MAX_QUEUE_NAME_BYTES);
    }
}

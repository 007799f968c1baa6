package org.rockcask.flink.source.split;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.junit.Test;

public class SequenceRangesTest {
    @Test
    public void consecutiveSequencesExtendOneRangeAndGapsStartNewOnes() {
        SequenceRanges ranges = new SequenceRanges();
        for (long s : new long[] {3, 4, 5, 9, 10, 20}) {
            ranges.add(s);
        }
        assertArrayEquals(new long[] {3, 5, 9, 10, 20, 20}, ranges.toPairs());
        assertTrue(ranges.contains(4));
        assertTrue(ranges.contains(20));
        assertFalse(ranges.contains(6));
        assertFalse(ranges.contains(2));
        assertFalse(ranges.contains(21));
    }

    @Test
    public void outOfOrderAdditionsMergeWithTheirNeighbours() {
        SequenceRanges ranges = SequenceRanges.of(1, 2, 6, 7, 20, 30);
        ranges.add(4);
        assertArrayEquals(new long[] {1, 2, 4, 4, 6, 7, 20, 30}, ranges.toPairs());
        ranges.add(3);
        ranges.add(5);
        assertArrayEquals(new long[] {1, 7, 20, 30}, ranges.toPairs());
        ranges.addAll(SequenceRanges.of(0, 0, 8, 25));
        assertArrayEquals(new long[] {0, 30}, ranges.toPairs());
    }

    @Test
    public void removeThroughDropsWholeRangesAndCutsThePartlyCoveredOne() {
        SequenceRanges ranges = SequenceRanges.of(1, 3, 5, 9, 12, 12);
        ranges.removeThrough(6);
        assertArrayEquals(new long[] {7, 9, 12, 12}, ranges.toPairs());
        ranges.removeThrough(12);
        assertTrue(ranges.isEmpty());
    }

    @Test
    public void manyRangesGrowTheStorage() {
        SequenceRanges ranges = new SequenceRanges();
        for (long s = 0; s < 1000; s += 2) {
            ranges.add(s);
        }
        assertTrue(ranges.contains(998));
        assertFalse(ranges.contains(999));
        assertArrayEquals(new long[] {0, 0, 2, 2}, java.util.Arrays.copyOf(ranges.toPairs(), 4));
    }

    @Test
    public void unsortedOrOverlappingBoundsAreRefusedNamingTheRange() {
        for (long[] bad : new long[][] {{5, 4}, {1, 3, 3, 6}, {1, 3, 4, 6}, {-1, 2}, {1}}) {
            try {
                SequenceRanges.of(bad);
                fail("accepted " + java.util.Arrays.toString(bad));
            } catch (IllegalArgumentException expected) {
                assertTrue(expected.getMessage(), expected.getMessage().contains("range") || expected.getMessage().contains("even"));
            }
        }
    }
}

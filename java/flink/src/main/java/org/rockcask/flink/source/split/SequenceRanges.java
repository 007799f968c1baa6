package org.rockcask.flink.source.split;

import java.util.Arrays;
import org.apache.flink.annotation.Internal;

/**
 * A set of queue sequence numbers kept as sorted, disjoint, non-adjacent inclusive ranges: the
 * entries a reader claimed and has not committed. Sequences are claimed in increasing order, so
 * adding one is usually an extension of the last range.
 */
@Internal
public final class SequenceRanges {
    /** Pairs: {@code bounds[2i]} first, {@code bounds[2i + 1]} last sequence of range i. */
    private long[] bounds;
    private int ranges;

    public SequenceRanges() {
        this(new long[8], 0);
    }

    private SequenceRanges(long[] bounds, int ranges) {
        this.bounds = bounds;
        this.ranges = ranges;
    }

    /**
     * The ranges {@code pairs} holds as first, last, first, last..., which must be sorted,
     * disjoint and non-adjacent, each first &lt;= last.
     *
     * @throws IllegalArgumentException naming the first pair that breaks the rule
     */
    public static SequenceRanges of(long... pairs) {
        if (pairs.length % 2 != 0) {
            throw new IllegalArgumentException("sequence ranges need an even count of bounds, got " + pairs.length);
        }
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i] < 0 || pairs[i] > pairs[i + 1] || (i > 0 && pairs[i] <= pairs[i - 1] + 1)) {
                throw new IllegalArgumentException("sequence range " + i / 2 + " [" + pairs[i] + ", " + pairs[i + 1]
                        + "] is empty, negative, or not after the previous one: " + Arrays.toString(pairs));
            }
        }
        long[] copy = Arrays.copyOf(pairs, Math.max(8, pairs.length));
        return new SequenceRanges(copy, pairs.length / 2);
    }

    public SequenceRanges copy() {
        return new SequenceRanges(Arrays.copyOf(bounds, bounds.length), ranges);
    }

    public boolean isEmpty() {
        return ranges == 0;
    }

    /** The bounds as first, last, first, last... (what {@link #of} takes). */
    public long[] toPairs() {
        return Arrays.copyOf(bounds, ranges * 2);
    }

    public boolean contains(long sequence) {
        int i = rangeAtOrBefore(sequence);
        return i >= 0 && sequence <= bounds[2 * i + 1];
    }

    /** Adds one sequence (cheap when it is past every range, as claims are). */
    public void add(long sequence) {
        addRange(sequence, sequence);
    }

    /** Adds every sequence of {@code other}. */
    public void addAll(SequenceRanges other) {
        for (int i = 0; i < other.ranges; i++) {
            addRange(other.bounds[2 * i], other.bounds[2 * i + 1]);
        }
    }

    /** Removes every sequence up to and including {@code sequence}. */
    public void removeThrough(long sequence) {
        int keepFrom = 0;
        while (keepFrom < ranges && bounds[2 * keepFrom + 1] <= sequence) {
            keepFrom++;
        }
        System.arraycopy(bounds, 2 * keepFrom, bounds, 0, 2 * (ranges - keepFrom));
        ranges -= keepFrom;
        if (ranges > 0 && bounds[0] <= sequence) {
            bounds[0] = sequence + 1;
        }
    }

    private void addRange(long first, long last) {
        if (first < 0) {
            throw new IllegalArgumentException("a queue sequence is never negative, got " + first);
        }
        if (ranges > 0 && first <= bounds[2 * ranges - 1] + 1 && first >= bounds[2 * ranges - 2]) {
            bounds[2 * ranges - 1] = Math.max(last, bounds[2 * ranges - 1]);
            return;
        }
        if (ranges == 0 || first > bounds[2 * ranges - 1] + 1) {
            append(first, last);
            return;
        }
        // Out of order: insert at its sorted place, then merge what now overlaps or touches.
        int at = 0;
        while (at < ranges && bounds[2 * at] < first) {
            at++;
        }
        append(0, 0);
        System.arraycopy(bounds, 2 * at, bounds, 2 * at + 2, 2 * (ranges - 1 - at));
        bounds[2 * at] = first;
        bounds[2 * at + 1] = last;
        coalesce();
    }

    private void coalesce() {
        int kept = 0;
        for (int i = 1; i < ranges; i++) {
            if (bounds[2 * i] <= bounds[2 * kept + 1] + 1) {
                bounds[2 * kept + 1] = Math.max(bounds[2 * kept + 1], bounds[2 * i + 1]);
            } else {
                kept++;
                bounds[2 * kept] = bounds[2 * i];
                bounds[2 * kept + 1] = bounds[2 * i + 1];
            }
        }
        ranges = kept + 1;
    }

    private void append(long first, long last) {
        if (2 * ranges + 2 > bounds.length) {
            bounds = Arrays.copyOf(bounds, bounds.length * 2);
        }
        bounds[2 * ranges] = first;
        bounds[2 * ranges + 1] = last;
        ranges++;
    }

    /** Index of the last range starting at or before {@code sequence}, or -1. */
    private int rangeAtOrBefore(long sequence) {
        int lo = 0;
        int hi = ranges - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (bounds[2 * mid] <= sequence) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SequenceRanges && Arrays.equals(((SequenceRanges) o).toPairs(), toPairs());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(toPairs());
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("[");
        for (int i = 0; i < ranges; i++) {
            s.append(i == 0 ? "" : ", ").append(bounds[2 * i]).append('-').append(bounds[2 * i + 1]);
        }
        return s.append(']').toString();
    }
}

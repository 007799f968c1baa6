package org.rockcask;

/**
 * A summary of recorded values: their count, sum, percentiles and maximum, in the unit of the
 * figure that returns it (nanoseconds for latencies). Values are kept in a log-bucketed
 * histogram: a percentile is never below the true value and at most 1/16 (6.25 %) above it; the
 * count, sum and maximum are exact.
 */
public final class Distribution {
    private final long count;
    private final long sum;
    private final long p50;
    private final long p90;
    private final long p99;
    private final long p999;
    private final long max;

    /** Reads the {@code SUMMARY_} slots of {@code v} from {@code at}. */
    Distribution(long[] v, int at) {
        this.count = v[at + Wire.SUMMARY_COUNT];
        this.sum = v[at + Wire.SUMMARY_SUM];
        this.p50 = v[at + Wire.SUMMARY_P50];
        this.p90 = v[at + Wire.SUMMARY_P90];
        this.p99 = v[at + Wire.SUMMARY_P99];
        this.p999 = v[at + Wire.SUMMARY_P999];
        this.max = v[at + Wire.SUMMARY_MAX];
    }

    /** How many values were recorded. */
    public long count() {
        return count;
    }

    /** The sum of the values. */
    public long sum() {
        return sum;
    }

    /** The mean value, or 0 when none was recorded. */
    public double mean() {
        return count == 0 ? 0 : (double) sum / count;
    }

    /** The median; 0 when no value was recorded (so are the other percentiles). */
    public long p50() {
        return p50;
    }

    public long p90() {
        return p90;
    }

    public long p99() {
        return p99;
    }

    /** The 99.9th percentile. */
    public long p999() {
        return p999;
    }

    /** The largest value recorded (exact). */
    public long max() {
        return max;
    }

    @Override
    public String toString() {
        return "Distribution[count=" + count + ", mean=" + mean() + ", p50=" + p50 + ", p90=" + p90 + ", p99=" + p99 + ", p999=" + p999 + ", max="
                + max + "]";
    }
}

package org.rockcask.bench;

import java.util.Arrays;
import java.util.List;

/** The median of a benchmark's repeated measurements (the mean of the middle two for an even count). */
public final class Median {
    private Median() {}

    public static double of(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    }

    public static double of(List<Double> values) {
        return of(values.stream().mapToDouble(Double::doubleValue).toArray());
    }
}

package org.rockcask.bench.graph;

import java.util.ArrayList;
import java.util.List;

/**
 * The rows of one run of the experiment, each a child JVM: the baseline once (its keys are only
 * looked up, their order changes nothing), every key-value contender once per key order, all at
 * the variant's heap. The padded variant adds the baseline and MapDB (label keys) at
 * {@value #LARGE_HEAP}, the heap the program that kept its street graph in MapDB ran with.
 */
final class GraphPlan {
    /** Small variant: the baseline holds about 260 MiB at 10^6 vertices (heap after collections, loading); the padded variant's heap leaves it room. */
    static final String SMALL_HEAP = "1000m";
    static final String PADDED_HEAP = "1000m";
    static final String LARGE_HEAP = "8000m";

    /** One child JVM of the run. */
    static final class Row {
        final String contender;
        final KeyOrder order;
        final String heap;

        Row(String contender, KeyOrder order, String heap) {
            this.contender = contender;
            this.order = order;
            this.heap = heap;
        }

        boolean isBaseline() {
            return contender.equals(GraphStores.BASELINE);
        }

        @Override
        public String toString() {
            return contender + (isBaseline() ? "" : ", " + order.name().toLowerCase(java.util.Locale.ROOT) + " keys") + ", -Xmx" + heap;
        }
    }

    private GraphPlan() {}

    static List<Row> rows(Variant variant, List<KeyOrder> orders, List<String> contenders) {
        String heap = variant == Variant.PADDED ? PADDED_HEAP : SMALL_HEAP;
        List<Row> rows = new ArrayList<>();
        for (String c : contenders) {
            if (c.equals(GraphStores.BASELINE)) {
                rows.add(new Row(c, KeyOrder.LABEL, heap));
                if (variant == Variant.PADDED) {
                    rows.add(new Row(c, KeyOrder.LABEL, LARGE_HEAP));
                }
                continue;
            }
            for (KeyOrder o : orders) {
                rows.add(new Row(c, o, heap));
            }
            if (variant == Variant.PADDED && c.equals("MapDB")) {
                rows.add(new Row(c, KeyOrder.LABEL, LARGE_HEAP));
            }
        }
        return rows;
    }
}

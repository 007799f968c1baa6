package org.rockcask;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One daemon thread for the whole JVM that refreshes every open store's beans each second, so
 * that a listing of the queue beans shows a queue within a second of its first commit even when
 * no bean is read. Started with the first store that registers beans.
 */
final class BeanRefresher {
    static final long PERIOD_MILLIS = 1_000;

    private static final Set<MetricsBeans> STORES = ConcurrentHashMap.newKeySet();
    private static ScheduledExecutorService timer;

    private BeanRefresher() {}

    static synchronized void add(MetricsBeans beans) {
        STORES.add(beans);
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "rockcask-metrics-beans");
                t.setDaemon(true);
                return t;
            });
            timer.scheduleWithFixedDelay(BeanRefresher::refreshAll, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    static void remove(MetricsBeans beans) {
        STORES.remove(beans);
    }

    private static void refreshAll() {
        for (MetricsBeans beans : STORES) {
            try {
                beans.refresh();
            } catch (RuntimeException e) {
                // One store's failure (a JMX registration refused) must not stop the others';
                // its next refresh tries again.
            }
        }
    }
}

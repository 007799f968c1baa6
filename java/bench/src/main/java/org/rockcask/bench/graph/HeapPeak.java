package org.rockcask.bench.graph;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * The largest heap in use after a garbage collection, from the collectors' notifications: what
 * the program really holds, not the garbage it has yet to collect. {@link #sample} adds a
 * collection of its own, so that a phase without one is measured too.
 */
final class HeapPeak {
    private final Set<String> heapPools = new HashSet<>();
    private volatile long peak;

    HeapPeak() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            ((NotificationEmitter) gc).addNotificationListener((notification, handback) -> {
                if (notification.getType().equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
                    record(heapUsed(info.getGcInfo().getMemoryUsageAfterGc()));
                }
            }, null, null);
        }
    }

    private long heapUsed(Map<String, MemoryUsage> pools) {
        long used = 0;
        for (Map.Entry<String, MemoryUsage> e : pools.entrySet()) {
            if (heapPools.contains(e.getKey())) {
                used += e.getValue().getUsed();
            }
        }
        return used;
    }

    private synchronized void record(long used) {
        peak = Math.max(peak, used);
    }

    /** Collects garbage and records the heap left in use. */
    void sample() {
        System.gc();
        record(ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }

    /** The peak so far, then starts a new phase from nothing. */
    synchronized long takePeak() {
        long p = peak;
        peak = 0;
        return p;
    }
}

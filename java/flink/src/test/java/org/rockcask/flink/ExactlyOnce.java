package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Checks that records {@code "<queue>#<index>"} arrived each exactly once, in order per queue. */
final class ExactlyOnce {
    private ExactlyOnce() {}

    static void assertEachOnceInQueueOrder(Map<String, Integer> written, List<String> received) {
        Map<String, List<Integer>> byQueue = new LinkedHashMap<>();
        for (String record : received) {
            int hash = record.lastIndexOf('#');
            byQueue.computeIfAbsent(record.substring(0, hash), q -> new ArrayList<>()).add(Integer.parseInt(record.substring(hash + 1)));
        }
        if (!byQueue.keySet().equals(written.keySet())) {
            fail("records came from queues " + byQueue.keySet() + ", written were " + written.keySet());
        }
        written.forEach((queue, count) -> {
            List<Integer> indexes = byQueue.get(queue);
            for (int i = 0; i < indexes.size(); i++) {
                if (indexes.get(i) != i) {
                    fail("queue " + queue + ": record " + i + " received was #" + indexes.get(i) + " (duplicated, lost or out of order); "
                            + "received " + indexes.size() + " of " + count);
                }
            }
            assertEquals("records received from queue " + queue, (long) count, indexes.size());
        });
    }
}

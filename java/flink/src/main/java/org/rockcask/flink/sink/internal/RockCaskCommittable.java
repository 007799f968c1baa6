package org.rockcask.flink.sink.internal;

import java.util.Objects;
import org.apache.flink.annotation.Internal;

/**
 * One staging queue ready to join its target: the machine and store directory it lives in, both
 * queue names, and how many records it holds.
 */
@Internal
public final class RockCaskCommittable {
    private final String host;
    private final String storePath;
    private final String stagingQueue;
    private final String targetQueue;
    private final long records;

    public RockCaskCommittable(String host, String storePath, String stagingQueue, String targetQueue, long records) {
        this.host = Objects.requireNonNull(host, "host");
        this.storePath = Objects.requireNonNull(storePath, "storePath");
        this.stagingQueue = Objects.requireNonNull(stagingQueue, "stagingQueue");
        this.targetQueue = Objects.requireNonNull(targetQueue, "targetQueue");
        this.records = records;
    }

    public String host() {
        return host;
    }

    public String storePath() {
        return storePath;
    }

    public String stagingQueue() {
        return stagingQueue;
    }

    public String targetQueue() {
        return targetQueue;
    }

    public long records() {
        return records;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RockCaskCommittable)) {
            return false;
        }
        RockCaskCommittable c = (RockCaskCommittable) o;
        return c.host.equals(host) && c.storePath.equals(storePath) && c.stagingQueue.equals(stagingQueue) && c.targetQueue.equals(targetQueue)
                && c.records == records;
    }

    @Override
    public int hashCode() {
        return Objects.hash(host, storePath, stagingQueue, targetQueue, records);
    }

    @Override
    public String toString() {
        return "RockCaskCommittable[" + records + " records in " + stagingQueue + " for " + targetQueue + " in " + storePath + " on " + host + "]";
    }
}

package org.rockcask.flink.source.reader;

import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/** How much a reader polls at once, and how much it may hold polled and not yet committed (checked by the builder). */
@Internal
public final class ReadLimits implements Serializable {
    private static final long serialVersionUID = 1L;

    final int pollBatchSize;
    final int maxUncommittedEntries;

    public ReadLimits(int pollBatchSize, int maxUncommittedEntries) {
        this.pollBatchSize = pollBatchSize;
        this.maxUncommittedEntries = maxUncommittedEntries;
    }
}

package org.rockcask.flink.source.reader;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.Transaction;
import org.rockcask.flink.source.split.QueueSplit;
import org.rockcask.flink.source.split.SequenceRanges;

/**
 * The transactions of one split: the current one claims what is polled; at each checkpoint it is
 * parked under the checkpoint's id and a new one begins; a completed checkpoint commits every
 * parked transaction up to its id, in order. Nothing is consumed before the checkpoint holding
 * its records completes, and a failure rolls every claim back to the head of the queue in order.
 */
final class QueueConsumer implements AutoCloseable {
    private final Store store;
    private final String queue;
    private final String host;
    /** Restored sequences still to meet: delivered before the restore, acknowledged without emitting. */
    private final SequenceRanges skip;
    private final TreeMap<Long, Claim> parked = new TreeMap<>();
    private Claim current;

    QueueConsumer(Store store, QueueSplit split) {
        this.store = store;
        this.queue = split.queue();
        this.host = split.host();
        this.skip = split.skip();
    }

    String queue() {
        return queue;
    }

    /**
     * Claims up to {@code max} entries from the head of the queue and hands each not to be
     * skipped to {@code emit}; entries of deleted objects go to {@code deleted}.
     *
     * @return how many entries were claimed (0 when the queue had none to give)
     */
    int poll(int max, Consumer<byte[]> emit, Runnable deleted) {
        if (current == null) {
            current = new Claim(store.begin());
        }
        List<Message> batch = current.transaction.poll(queue, max);
        current.entries += batch.size();
        for (Message message : batch) {
            long sequence = message.sequence();
            current.sequences.add(sequence);
            boolean delivered = skip.contains(sequence);
            // Entries arrive in sequence order: a restored sequence below this one is gone.
            skip.removeThrough(sequence);
            if (delivered) {
                continue;
            }
            if (message.payload() == null) {
                deleted.run();
            } else {
                emit.accept(message.payload());
            }
        }
        return batch.size();
    }

    /** Parks the current transaction under {@code checkpointId}; returns the split's state. */
    QueueSplit snapshot(long checkpointId) {
        if (current != null && !current.sequences.isEmpty()) {
            parked.put(checkpointId, current);
            current = null;
        }
        SequenceRanges uncommitted = skip.copy();
        for (Claim claim : parked.values()) {
            uncommitted.addAll(claim.sequences);
        }
        return new QueueSplit(queue, host, uncommitted);
    }

    /**
     * Commits every transaction parked at checkpoints up to {@code checkpointId}, oldest first;
     * returns how many entries they had claimed.
     */
    long commitThrough(long checkpointId) {
        long committed = 0;
        Iterator<Map.Entry<Long, Claim>> due = parked.headMap(checkpointId, true).entrySet().iterator();
        while (due.hasNext()) {
            Claim claim = due.next().getValue();
            try {
                claim.transaction.commit();
            } finally {
                claim.transaction.close();
            }
            committed += claim.entries;
            due.remove();
        }
        return committed;
    }

    /** Rolls every claim back to the head of the queue. */
    @Override
    public void close() {
        if (current != null) {
            current.transaction.close();
            current = null;
        }
        for (Claim claim : parked.values()) {
            claim.transaction.close();
        }
        parked.clear();
    }

    /** A transaction and the sequences it claimed. */
    private static final class Claim {
        final Transaction transaction;
        final SequenceRanges sequences = new SequenceRanges();
        long entries;

        Claim(Transaction transaction) {
            this.transaction = transaction;
        }
    }
}

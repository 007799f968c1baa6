package org.rockcask.flink.sink.internal;

import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.connector.sink2.Committer;
import org.rockcask.RockCaskException;
import org.rockcask.Transaction;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.RockCaskStores;
import org.rockcask.flink.internal.Hosts;

/**
 * Moves each staged queue to the end of its target in one RockCask transaction. Idempotent: a
 * staging queue that no longer exists was committed before (Flink commits a restored
 * checkpoint's committables again).
 */
@Internal
public final class RockCaskCommitter implements Committer<RockCaskCommittable> {
    /**
     * RockCask states after which the same commit may well succeed. A bounded target that is full
     * ({@code QueueFull}) takes the records once its consumers have made room, so the commit is
     * retried rather than failing the job.
     */
    private static final Set<RockCaskException.Status> TRANSIENT = EnumSet.of(RockCaskException.Status.Busy,
            RockCaskException.Status.TryAgain, RockCaskException.Status.TimedOut, RockCaskException.Status.QueueFull);

    private final RockCaskStoreSpec spec;
    private final String host;
    /** Leases by store directory: committables restored from an older savepoint may name another one. */
    private final Map<String, RockCaskStores.Lease> leases = new HashMap<>();

    /** Opens stores as {@code spec} does, on this machine. */
    public RockCaskCommitter(RockCaskStoreSpec spec) {
        this(spec, Hosts.localHost());
    }

    /** Commits as if it ran on {@code host}. */
    RockCaskCommitter(RockCaskStoreSpec spec, String host) {
        this.spec = spec;
        this.host = host;
    }

    @Override
    public void commit(Collection<CommitRequest<RockCaskCommittable>> requests) {
        for (CommitRequest<RockCaskCommittable> request : requests) {
            commit(request);
        }
    }

    private void commit(CommitRequest<RockCaskCommittable> request) {
        RockCaskCommittable c = request.getCommittable();
        if (!c.host().equals(host)) {
            // The staged records are in another machine's store: succeeding here would lose them.
            request.signalFailedWithUnknownReason(new IllegalStateException("cannot commit RockCask staging queue " + c.stagingQueue()
                    + " (" + c.records() + " records for " + c.targetQueue() + "): it was staged in " + c.storePath() + " on host "
                    + c.host() + ", but this committer runs on host " + host));
            return;
        }
        try (Transaction tx = store(c.storePath()).begin()) {
            long moved = tx.moveQueue(c.stagingQueue(), c.targetQueue());
            if (moved == 0) {
                request.signalAlreadyCommitted();
                return;
            }
            if (moved < c.records()) {
                // Fewer than its writer staged: something else took from this staging queue.
                // Committing would report records as delivered that are gone; leave it as it is.
                tx.rollback();
                request.signalFailedWithUnknownReason(new IllegalStateException("RockCask staging queue " + c.stagingQueue() + " in "
                        + c.storePath() + " holds " + moved + " records where its writer staged " + c.records()
                        + ": left uncommitted (did something else drop or poll it?)"));
                return;
            }
            tx.commit();
        } catch (RockCaskException e) {
            if (e.status() == RockCaskException.Status.QueueFull && neverFits(c)) {
                request.signalFailedWithUnknownReason(new IllegalStateException("RockCask staging queue " + c.stagingQueue() + " in "
                        + c.storePath() + " holds " + c.records() + " records, more than the capacity of " + c.targetQueue() + " ("
                        + store(c.storePath()).queueOptions(c.targetQueue()) + "): it can never be committed. Give the target room"
                        + " for at least the records one subtask stages in one checkpoint interval", e));
            } else if (TRANSIENT.contains(e.status())) {
                request.retryLater();
            } else {
                request.signalFailedWithUnknownReason(new IllegalStateException("cannot commit RockCask staging queue " + c.stagingQueue()
                        + " to " + c.targetQueue() + " in " + c.storePath(), e));
            }
        }
    }

    /** Whether the staged records would overfill the target even if it were empty. */
    private boolean neverFits(RockCaskCommittable c) {
        long capacity = store(c.storePath()).queueOptions(c.targetQueue()).capacity();
        return capacity > 0 && c.records() > capacity;
    }

    private org.rockcask.Store store(String path) {
        RockCaskStores.Lease lease = leases.get(path);
        if (lease == null) {
            lease = RockCaskStores.acquireExisting(spec.withPath(path));
            leases.put(path, lease);
        }
        return lease.store();
    }

    @Override
    public void close() {
        for (RockCaskStores.Lease lease : leases.values()) {
            lease.close();
        }
        leases.clear();
    }
}

package org.rockcask.flink.sink;

import java.io.IOException;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.connector.sink2.CommittingSinkWriter;
import org.apache.flink.api.connector.sink2.InitContext;
import org.apache.flink.api.connector.sink2.StatefulSinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.rockcask.Store;
import org.rockcask.Transaction;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.RockCaskStores;
import org.rockcask.flink.internal.Hosts;
import org.rockcask.flink.internal.StagingQueues;
import org.rockcask.flink.sink.internal.RockCaskCommittable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stages records for the checkpoint they belong to in a queue of their own, durably, so that a
 * checkpoint that completed survives the death of this process before its commit: the committer
 * then moves the staged queue into the target, again after a restore.
 *
 * <p>Records go into the current epoch's staging queue in transactions committed every
 * {@code batchRecords} records or {@code batchBytes} bytes (memory stays bounded) and at
 * {@link #prepareCommit()}. The epoch is the id of the checkpoint the records are meant for.
 */
final class RockCaskWriter<T> implements CommittingSinkWriter<T, RockCaskCommittable>, StatefulSinkWriter<T, String> {
    private static final Logger LOG = LoggerFactory.getLogger(RockCaskWriter.class);

    private final RockCaskStores.Lease lease;
    private final Store store;
    private final String storePath;
    private final String target;
    private final SerializationSchema<T> schema;
    private final SinkSettings settings;
    private final String host = Hosts.localHost();
    private final String lineage;
    private final int subtask;
    private final int stateCopies;
    private final Counter numRecordsSend;
    private final Counter numBytesSend;

    private long epoch;
    /** Open while records wait to be committed to the staging queue; null otherwise. */
    private Transaction batch;
    private long batchRecords;
    private long batchBytes;
    /** Records committed to the current epoch's staging queue so far. */
    private long epochRecords;

    /**
     * Opens the store, settles the lineage and drains what earlier attempts staged after the
     * checkpoint restored from (their records come again from the source).
     */
    RockCaskWriter(WriterInitContext context, Collection<String> restoredLineages, RockCaskStoreSpec spec, String target,
            SerializationSchema<T> schema, SinkSettings settings, UUID sinkId) throws IOException {
        this.storePath = spec.path();
        this.target = target;
        this.schema = schema;
        this.settings = settings;
        this.subtask = context.getTaskInfo().getIndexOfThisSubtask();
        int parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        this.stateCopies = stateCopies(context.getTaskInfo().getMaxNumberOfParallelSubtasks(), parallelism);
        this.lineage = lineage(restoredLineages, freshLineage(context.getJobInfo().getJobId(), sinkId));
        long restored = context.getRestoredCheckpointId().orElse(InitContext.INITIAL_CHECKPOINT_ID - 1);
        this.epoch = restored + 1;
        this.numRecordsSend = context.metricGroup().getNumRecordsSendCounter();
        this.numBytesSend = context.metricGroup().getNumBytesSendCounter();
        try {
            schema.open(context.asSerializationSchemaInitializationContext());
        } catch (Exception e) {
            throw new IOException("cannot open the serialization schema of the RockCask sink for " + target, e);
        }
        this.lease = RockCaskStores.acquire(spec);
        this.store = lease.store();
        Map<String, Long> dropped = new TreeMap<>();
        Map<String, Long> kept = new TreeMap<>();
        try {
            drainAfter(restored, parallelism, dropped, kept);
        } catch (RuntimeException e) {
            lease.close();
            throw e;
        }
        if (context.getRestoredCheckpointId().isPresent()) {
            LOG.info("RockCask sink writer {} of {} for queue {} in {}: {}", subtask, parallelism, target, storePath, restoreReport(restored, dropped, kept));
        }
        // What `rockcask staging list` shows, should this job never come back.
        LOG.info("RockCask sink writer {} of {} for queue {} in {}: lineage {}, staging from epoch {}", subtask, parallelism, target, storePath,
                lineage, epoch);
    }

    /**
     * A fresh start's lineage: the job id and the sink's own id combined (32 hex digits), so it
     * is the same for every subtask and restart of this sink in this job, and differs for another
     * sink, or for a job submitted again under the same job id without its state.
     */
    static String freshLineage(JobID job, UUID sinkId) {
        return String.format("%016x%016x", job.getUpperPart() ^ sinkId.getMostSignificantBits(), job.getLowerPart() ^ sinkId.getLeastSignificantBits());
    }

    /**
     * The lineage every restored state carries (they agree: each writer took it from its own
     * restored state, and the first run's writers from their job id).
     */
    private static String lineage(Collection<String> restored, String jobId) {
        if (restored.isEmpty()) {
            return jobId;
        }
        String first = restored.iterator().next();
        for (String other : restored) {
            if (!other.equals(first)) {
                throw new IllegalStateException("the RockCask sink's restored writer states name two lineages, " + first + " and " + other
                        + ": were two jobs' states merged?");
            }
        }
        return first;
    }

    /**
     * How many copies of the lineage each writer's state holds: Flink spreads list state entries
     * evenly over the subtasks of a restored job, so with this many copies in all (at least the
     * max parallelism) every subtask of any later parallelism receives the lineage.
     */
    static int stateCopies(int maxParallelism, int parallelism) {
        return Math.max(1, (maxParallelism + parallelism - 1) / parallelism);
    }

    /**
     * Drops this lineage's staging queues of epochs after {@code restored}: this subtask's own,
     * and, on subtask 0, those of subtasks that no longer exist. Epochs up to {@code restored}
     * are the committables of the restored checkpoint: the committer commits them.
     */
    private void drainAfter(long restored, int parallelism, Map<String, Long> dropped, Map<String, Long> kept) {
        String prefix = StagingQueues.lineagePrefix(target, lineage);
        // Only subtask 0 looks beyond its own queues.
        String listed = subtask == 0 ? prefix : StagingQueues.subtaskPrefix(target, lineage, subtask);
        for (String queue : store.queues(listed)) {
            Optional<StagingQueues.Slot> slot = StagingQueues.parse(queue);
            if (!slot.isPresent() || !slot.get().target.equals(target) || !slot.get().lineage.equals(lineage)) {
                continue;
            }
            int owner = slot.get().subtask;
            if (owner != subtask && !(subtask == 0 && owner >= parallelism)) {
                continue;
            }
            if (slot.get().epoch <= restored) {
                kept.put(queue, store.queueSize(queue));
                continue;
            }
            try (Transaction tx = store.begin()) {
                dropped.put(queue, tx.dropQueue(queue));
                tx.commit();
            }
        }
    }

    /**
     * What a restore did to this writer's staging queues, for the log: those dropped (staged after
     * the restored checkpoint; their records come again from the source) and those of the
     * restored checkpoint left for the committer to move into the target, each with its records.
     */
    static String restoreReport(long restored, Map<String, Long> dropped, Map<String, Long> kept) {
        return "restored checkpoint " + restored + "; dropped " + listing(dropped) + "; left to the committer to commit " + listing(kept);
    }

    private static String listing(Map<String, Long> queues) {
        if (queues.isEmpty()) {
            return "no staging queue";
        }
        StringJoiner out = new StringJoiner(", ", queues.size() + " staging queue" + (queues.size() == 1 ? "" : "s") + " (", ")");
        queues.forEach((queue, records) -> out.add(queue + ": " + records + (records == 1 ? " record" : " records")));
        return out.toString();
    }

    @Override
    public void write(T element, Context context) {
        byte[] bytes = schema.serialize(element);
        if (bytes == null) {
            throw new IllegalArgumentException("the serialization schema of the RockCask sink for " + target + " returned null for " + element);
        }
        if (batch == null) {
            batch = store.begin();
        }
        batch.enqueue(currentStagingQueue(), bytes);
        batchRecords++;
        batchBytes += bytes.length;
        numRecordsSend.inc();
        numBytesSend.inc(bytes.length);
        if (batchRecords >= settings.batchRecords() || batchBytes >= settings.batchBytes()) {
            commitBatch();
        }
    }

    private String currentStagingQueue() {
        return StagingQueues.name(target, lineage, subtask, epoch);
    }

    private void commitBatch() {
        if (batch == null) {
            return;
        }
        try {
            batch.commit();
        } finally {
            batch.close();
            batch = null;
        }
        epochRecords += batchRecords;
        batchRecords = 0;
        batchBytes = 0;
    }

    @Override
    public void flush(boolean endOfInput) {
        commitBatch();
    }

    @Override
    public Collection<RockCaskCommittable> prepareCommit() {
        commitBatch();
        if (epochRecords == 0) {
            return Collections.emptyList();
        }
        RockCaskCommittable ready = new RockCaskCommittable(host, storePath, currentStagingQueue(), target, epochRecords);
        epochRecords = 0;
        return Collections.singletonList(ready);
    }

    @Override
    public List<String> snapshotState(long checkpointId) {
        // Records from now on belong to the next checkpoint. prepareCommit ran just before, so
        // the current epoch's queue is complete and handed to the committer.
        epoch = checkpointId + 1;
        return Collections.nCopies(stateCopies, lineage);
    }

    @Override
    public void close() {
        try {
            if (batch != null) {
                batch.close();
                batch = null;
            }
        } finally {
            lease.close();
        }
    }
}

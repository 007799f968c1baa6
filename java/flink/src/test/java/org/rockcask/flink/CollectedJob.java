package org.rockcask.flink;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.util.CloseableIterator;

/**
 * A running job whose output goes to Flink's collect sink. With checkpointing on, the collect
 * sink hands out only what a completed checkpoint covers and forgets the rest on failover: what
 * arrives here is what the job delivered exactly once, or the source's fault.
 */
final class CollectedJob implements AutoCloseable {
    private final JobClient client;
    private final CloseableIterator<String> results;
    private final List<String> received = new ArrayList<>();

    private CollectedJob(JobClient client, CloseableIterator<String> results) {
        this.client = client;
        this.results = results;
    }

    static CollectedJob start(StreamExecutionEnvironment env, DataStream<String> output, String name) throws Exception {
        CloseableIterator<String> results = output.collectAsync();
        return new CollectedJob(env.executeAsync(name), results);
    }

    /** Blocks until {@code total} records have arrived in all. */
    void awaitReceived(int total) {
        while (received.size() < total && results.hasNext()) {
            received.add(results.next());
        }
    }

    /** Blocks until the (bounded) job ends, then checks it finished. */
    void awaitFinished() throws Exception {
        results.forEachRemaining(received::add);
        client.getJobExecutionResult().get();
        assertEquals(JobStatus.FINISHED, client.getJobStatus().get());
    }

    /** Stops the (unbounded) job with a savepoint and takes what it delivered up to then. */
    void stop(String savepointDir) throws Exception {
        client.stopWithSavepoint(false, savepointDir, SavepointFormatType.CANONICAL).get();
        results.forEachRemaining(received::add);
        assertTrue(client.getJobStatus().get().isGloballyTerminalState());
    }

    List<String> received() {
        return received;
    }

    @Override
    public void close() throws IOException {
        try {
            // Cancels the job when it is still running.
            results.close();
        } catch (Exception e) {
            throw new IOException("cannot close the results of job " + client.getJobID() + " (or cancel it)", e);
        }
    }
}

package org.rockcask.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.serialization.SimpleStringSchema;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.Transaction;
import org.rockcask.flink.RockCaskStoreSpec;
import org.rockcask.flink.RockCaskStores;
import org.rockcask.flink.sink.RockCaskSink;
import org.rockcask.flink.source.RockCaskSource;

/**
 * A Flink job between RockCask queues: items waiting in three input queues are read, transformed
 * and written to one output queue, on a local MiniCluster with parallelism 2, and a failure is
 * injected once mid-run. At the end, every item must be in the output exactly once, in its input
 * queue's order, and nothing may be left in the input or staging queues: then it prints
 * {@code CHECK OK}.
 *
 * <p>Argument: the number of items (default 30,000), spread over the input queues.
 */
public final class FlinkFlow {
    private static final String[] INPUTS = {"orders.0", "orders.1", "orders.2"};
    private static final String OUTPUT = "shipped";
    private static final int PARALLELISM = 2;

    /** The injected failure's message once thrown (the job runs in this JVM, so a static is shared). */
    private static final AtomicReference<String> FAILURE = new AtomicReference<>();
    /** Subtasks of the transformation opened: the parallelism, plus one per subtask restarted. */
    private static final AtomicInteger OPENED = new AtomicInteger();

    private FlinkFlow() {}

    public static void main(String[] args) throws Exception {
        int items = args.length > 0 ? Integer.parseInt(args[0]) : 30_000;
        if (items < INPUTS.length * 10) {
            throw new IllegalArgumentException("at least " + INPUTS.length * 10 + " items, so the failure lands mid-run: " + items);
        }
        Path dir = Paths.get("flink-flow-store").toAbsolutePath();
        deleteRecursively(dir);
        RockCaskStoreSpec store = RockCaskStoreSpec.at(dir.toString());
        // Holding a lease for the whole run keeps the store open between the job and the check.
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(store)) {
            fillInputs(lease.store(), items);
            long started = System.nanoTime();
            runJob(store, items);
            double seconds = (System.nanoTime() - started) / 1e9;
            System.out.printf("job moved %,d items in %.1f s (%,.0f items/s) with %d subtask restarts (%s)%n", items, seconds, items / seconds, OPENED.get() - PARALLELISM, FAILURE.get());
            check(lease.store(), items);
        }
    }

    private static void fillInputs(Store store, int items) {
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < items; i++) {
                String queue = INPUTS[i % INPUTS.length];
                tx.enqueue(queue, (queue + ":" + i / INPUTS.length).getBytes(StandardCharsets.UTF_8));
            }
            tx.commit();
        }
        System.out.printf("enqueued %,d items into %s%n", items, String.join(", ", INPUTS));
    }

    private static void runJob(RockCaskStoreSpec store, int items) throws Exception {
        Configuration conf = new Configuration();
        conf.setString("restart-strategy.type", "fixed-delay");
        conf.setString("restart-strategy.fixed-delay.attempts", "3");
        conf.setString("restart-strategy.fixed-delay.delay", "200 ms");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(PARALLELISM, conf);
        // Records reach the output, and leave the inputs, when the checkpoint covering them completes.
        env.enableCheckpointing(200);
        env.fromSource(
                        RockCaskSource.<String>builder()
                                .store(store)
                                .queuePrefix("orders.")
                                .bounded()
                                .deserializer(new SimpleStringSchema())
                                .build(),
                        WatermarkStrategy.noWatermarks(),
                        "orders")
                .map(new Pack(items / 2))
                .name("pack")
                .sinkTo(RockCaskSink.<String>builder()
                        .store(store)
                        .targetQueue(OUTPUT)
                        .serializer(new SimpleStringSchema())
                        .build())
                .name("shipped");
        env.execute("rockcask-flink-flow");
    }

    /**
     * The transformation, which throws once, half-way through the items: the job then restarts
     * from its last completed checkpoint (or from the start, if none completed yet).
     */
    static final class Pack extends RichMapFunction<String, String> implements CheckpointListener {
        private static final AtomicInteger SEEN = new AtomicInteger();
        private final int failAt;
        private long checkpointsCompleted;

        Pack(int failAt) {
            this.failAt = failAt;
        }

        @Override
        public void open(OpenContext context) {
            OPENED.incrementAndGet();
        }

        @Override
        public String map(String item) {
            if (SEEN.incrementAndGet() >= failAt && FAILURE.get() == null) {
                String what = "failure injected after " + SEEN.get() + " items, " + checkpointsCompleted + " checkpoints of this subtask completed before it";
                if (FAILURE.compareAndSet(null, what)) {
                    throw new IllegalStateException(what);
                }
            }
            return item + "|packed";
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            checkpointsCompleted++;
        }
    }

    private static void check(Store store, int items) {
        List<String> problems = new ArrayList<>();
        int[] next = new int[INPUTS.length];
        int seen = 0;
        try (Transaction tx = store.begin()) {
            for (List<Message> batch; !(batch = tx.poll(OUTPUT, 10_000)).isEmpty(); ) {
                for (Message m : batch) {
                    String item = new String(m.payload(), StandardCharsets.UTF_8);
                    seen++;
                    int colon = item.indexOf(':');
                    int bar = item.indexOf('|');
                    int queue = colon < 0 ? -1 : Arrays.asList(INPUTS).indexOf(item.substring(0, colon));
                    if (queue < 0 || bar < colon || !item.endsWith("|packed")) {
                        problems.add("unexpected item " + item);
                        continue;
                    }
                    int index = Integer.parseInt(item.substring(colon + 1, bar));
                    if (index != next[queue]) {
                        problems.add(INPUTS[queue] + ": item " + index + " where " + next[queue] + " was due (a duplicate, a loss or a reordering)");
                    }
                    next[queue] = index + 1;
                }
            }
            tx.commit();
        }
        if (seen != items) {
            problems.add(seen + " items arrived, " + items + " were sent");
        }
        for (String input : INPUTS) {
            if (store.queueSize(input) != 0) {
                problems.add(input + " still holds " + store.queueSize(input) + " items");
            }
        }
        if (!store.queues(OUTPUT + ".staging/").isEmpty()) {
            problems.add("staging queues left behind: " + store.queues(OUTPUT + ".staging/"));
        }
        if (FAILURE.get() == null) {
            problems.add("the failure was never injected");
        }
        if (!problems.isEmpty()) {
            System.out.println("CHECK FAILED: " + problems.subList(0, Math.min(problems.size(), 10)));
            System.exit(1);
        }
        System.out.printf("CHECK OK: %,d items from %d queues arrived exactly once and in order per queue, through an injected failure%n", items, INPUTS.length);
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove the previous run's store " + dir, e);
        }
    }
}

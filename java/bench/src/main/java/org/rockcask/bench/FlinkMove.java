package org.rockcask.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.serialization.SerializationSchema;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.TypeInformation;
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
 * Moving items between RockCask queues through Flink, beside the native API doing the same
 * moves in the same run: {@code parallelism} input queues of {@code items / parallelism}
 * payloads each, moved to one output queue. Flink: a MiniCluster job RockCaskSource -> identity
 * map -> RockCaskSink, checkpoint every {@code checkpointMillis}. Native: one thread per input
 * queue, each transaction polling {@code batch} items and enqueueing their payloads into the
 * output, synced commits. Both end with every item checked to be in the output.
 *
 * <p>Usage: {@code FlinkMove [items] [payloadBytes] [parallelism] [checkpointMillis] [batch] [inline]}
 * (default 1000000 256 2 1000 1000 0; {@code inline}: the stores'
 * {@link RockCaskStoreSpec#withInlinePayloadBytes}, for both paths).
 */
public final class FlinkMove {
    private static final String OUTPUT = "out";
    /** The stores' inline payload bytes (both paths). */
    private static int inlinePayloadBytes;

    private FlinkMove() {}

    public static void main(String[] args) throws Exception {
        int items = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int payloadBytes = args.length > 1 ? Integer.parseInt(args[1]) : 256;
        int parallelism = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        long checkpointMillis = args.length > 3 ? Long.parseLong(args[3]) : 1_000;
        int batch = args.length > 4 ? Integer.parseInt(args[4]) : 1_000;
        inlinePayloadBytes = args.length > 5 ? Integer.parseInt(args[5]) : 0;
        Path root = Dirs.benchRoot();
        DiskLimits before = DiskLimits.measure(root);
        System.out.println(String.format(Locale.ROOT,
                "Flink move: %,d items of %d bytes from %d queues into one, parallelism %d, checkpoint every %d ms; native: transactions of %d, synced; payloads %s",
                items, payloadBytes, parallelism, parallelism, checkpointMillis, batch, inlinePayloadBytes >= payloadBytes ? "inline" : "in objects"));
        System.out.println(before);

        double nativeRate = items / moveNatively(root.resolve("flink-move-native-" + System.nanoTime()), items, payloadBytes, parallelism, batch);
        double flinkRate = items / moveThroughFlink(root.resolve("flink-move-job-" + System.nanoTime()), items, payloadBytes, parallelism, checkpointMillis);

        System.out.println(String.format(Locale.ROOT, "%-32s %14s %8s", "path", "items/s", "ratio"));
        System.out.println(String.format(Locale.ROOT, "%-32s %,14.0f %8s", "native API (transactions of " + batch + ")", nativeRate, "1.00x"));
        System.out.println(String.format(Locale.ROOT, "%-32s %,14.0f %7.2fx", "Flink source -> map -> sink", flinkRate, flinkRate / nativeRate));
        System.out.println("after: " + DiskLimits.measure(root));
    }

    private static String input(int k) {
        return "in." + k;
    }

    private static void fill(Store store, int items, int payloadBytes, int queues) {
        byte[] payload = new byte[payloadBytes];
        for (int done = 0; done < items; ) {
            try (Transaction tx = store.begin()) {
                for (int end = Math.min(items, done + 10_000); done < end; done++) {
                    tx.enqueue(input(done % queues), payload);
                }
                tx.commit();
            }
        }
    }

    private static void checkMoved(Store store, int items, int queues) {
        for (int k = 0; k < queues; k++) {
            if (store.queueSize(input(k)) != 0) {
                throw new AssertionError(input(k) + " still holds " + store.queueSize(input(k)));
            }
        }
        if (store.queueSize(OUTPUT) != items) {
            throw new AssertionError(OUTPUT + " holds " + store.queueSize(OUTPUT) + " items, " + items + " were moved");
        }
        try (Transaction tx = store.begin()) {
            for (Message m : tx.peek(OUTPUT, Math.min(items, 1 << 20))) {
                if (m.payload() == null) {
                    throw new AssertionError("lost payload of " + m.id());
                }
            }
        }
    }

    /** Seconds the native moves took. */
    private static double moveNatively(Path dir, int items, int payloadBytes, int threads, int batch) throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(dir.toString()).withInlinePayloadBytes(inlinePayloadBytes);
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            Store store = lease.store();
            fill(store, items, payloadBytes, threads);
            List<Thread> movers = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            long t0 = System.nanoTime();
            for (int k = 0; k < threads; k++) {
                String from = input(k);
                Thread t = new Thread(() -> {
                    for (boolean more = true; more; ) {
                        try (Transaction tx = store.begin()) {
                            List<Message> polled = tx.poll(from, batch);
                            for (Message m : polled) {
                                tx.enqueue(OUTPUT, m.payload());
                            }
                            tx.commit();
                            more = !polled.isEmpty();
                        }
                    }
                }, "mover-" + k);
                t.setUncaughtExceptionHandler((th, e) -> {
                    synchronized (failures) {
                        failures.add(e);
                    }
                });
                movers.add(t);
                t.start();
            }
            for (Thread t : movers) {
                t.join();
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            if (!failures.isEmpty()) {
                throw new AssertionError("a mover failed", failures.get(0));
            }
            checkMoved(store, items, threads);
            return seconds;
        }
    }

    /** Seconds the Flink job took, from submission to its end. */
    private static double moveThroughFlink(Path dir, int items, int payloadBytes, int parallelism, long checkpointMillis) throws Exception {
        RockCaskStoreSpec spec = RockCaskStoreSpec.at(dir.toString()).withInlinePayloadBytes(inlinePayloadBytes);
        try (RockCaskStores.Lease lease = RockCaskStores.acquire(spec)) {
            fill(lease.store(), items, payloadBytes, parallelism);
            StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, new Configuration());
            env.enableCheckpointing(checkpointMillis);
            env.fromSource(
                            RockCaskSource.<byte[]>builder().store(spec).queuePrefix("in.").bounded().deserializer(new RawBytes()).build(),
                            WatermarkStrategy.noWatermarks(),
                            "in")
                    .map(bytes -> bytes)
                    .returns(PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO)
                    .sinkTo(RockCaskSink.<byte[]>builder().store(spec).targetQueue(OUTPUT).serializer(new RawBytes()).build());
            long t0 = System.nanoTime();
            env.execute("flink-move");
            double seconds = (System.nanoTime() - t0) / 1e9;
            checkMoved(lease.store(), items, parallelism);
            return seconds;
        }
    }

    /** Payloads as they are: what a job moving opaque records uses. */
    static final class RawBytes implements DeserializationSchema<byte[]>, SerializationSchema<byte[]> {
        private static final long serialVersionUID = 1L;

        @Override
        public byte[] deserialize(byte[] message) {
            return message;
        }

        @Override
        public boolean isEndOfStream(byte[] next) {
            return false;
        }

        @Override
        public byte[] serialize(byte[] element) {
            return element;
        }

        @Override
        public TypeInformation<byte[]> getProducedType() {
            return PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO;
        }
    }
}

package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.Test;

/**
 * The bank test: 8 threads move random amounts between 100 accounts in one map by
 * read-modify-write, while 4 readers sum every account, each way there is to read one snapshot
 * ({@code get}, {@code getAll}, a scan and a cursor in a read-only transaction; a
 * {@link MapReader}'s scan, {@code getAll} and cursor). Every sum must be the opening total, no
 * reader may ever see {@code Conflict}, and the closing total is exact. It runs for
 * {@link #seconds()} (3 s here; {@link MapsBankSoakTest}, {@code make soak}, runs it longer).
 */
public class MapsBankTest extends WithOpenStore {
    private static final int ACCOUNTS = 100;
    private static final long OPENING = 1_000;
    private static final long TOTAL = ACCOUNTS * OPENING;

    protected long seconds() {
        return Long.getLong("rockcask.test.bankSeconds", 3);
    }

    private static byte[] account(int i) {
        return String.format("acct%03d", i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static byte[] longBytes(long v) {
        return ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array();
    }

    private static long asLong(byte[] v) {
        return ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    private static long sumOf(List<Map.Entry<byte[], byte[]>> pairs) {
        assertEquals("every account, once", ACCOUNTS, pairs.size());
        long sum = 0;
        for (Map.Entry<byte[], byte[]> p : pairs) {
            sum += asLong(p.getValue());
        }
        return sum;
    }

    private static long sumOfValues(List<byte[]> values) {
        long sum = 0;
        for (byte[] v : values) {
            sum += asLong(v);
        }
        return sum;
    }

    private static long sumOfCursor(MapCursor cursor) {
        List<Map.Entry<byte[], byte[]>> pairs = new ArrayList<>();
        try (MapCursor c = cursor) {
            c.forEachRemaining(pairs::add);
        }
        return sumOf(pairs);
    }

    @Test
    public void transfersKeepTheTotalForEverySnapshotReaderAndNoReaderConflicts() throws Exception {
        List<byte[]> keys = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < ACCOUNTS; i++) {
                keys.add(account(i));
                tx.map("bank").put(account(i), longBytes(OPENING));
            }
            tx.commit();
        }
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(12);
        List<Future<Long>> writers = new ArrayList<>();
        List<Future<Long>> readers = new ArrayList<>();
        RetryPolicy patient = RetryPolicy.defaults().maxAttempts(1_000_000).maxTime(java.time.Duration.ofMinutes(10));
        for (int w = 0; w < 8; w++) {
            writers.add(pool.submit(() -> {
                long transfers = 0;
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get()) {
                    int from = random.nextInt(ACCOUNTS);
                    int to = (from + 1 + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                    long amount = random.nextLong(1, 50);
                    store.inTransaction(patient, tx -> {
                        TxMap bank = tx.map("bank");
                        bank.put(account(from), longBytes(asLong(bank.get(account(from))) - amount));
                        bank.put(account(to), longBytes(asLong(bank.get(account(to))) + amount));
                        return null;
                    });
                    transfers++;
                }
                return transfers;
            }));
        }
        MapReader reader = store.mapReader("bank");
        for (int r = 0; r < 4; r++) {
            readers.add(pool.submit(() -> {
                long sums = 0;
                while (!stop.get()) {
                    try (Transaction tx = store.begin()) {
                        TxMap bank = tx.map("bank");
                        long byGet = 0;
                        for (byte[] k : keys) {
                            byGet += asLong(bank.get(k));
                        }
                        assertEquals("by get in one transaction", TOTAL, byGet);
                        assertEquals("by getAll in the same one", TOTAL, sumOfValues(bank.getAll(keys)));
                        assertEquals("by a scan in the same one", TOTAL, sumOf(bank.scan(null, null, false, 1_000)));
                        assertEquals("by a cursor in the same one", TOTAL, sumOfCursor(bank.cursor(null, null, true, 7)));
                        // Read-only: commits at once, never with Conflict.
                        tx.commit();
                    }
                    assertEquals("by a MapReader scan", TOTAL, sumOf(reader.scan(null, null, false, 1_000)));
                    assertEquals("by MapReader.getAll", TOTAL, sumOfValues(reader.getAll(keys)));
                    assertEquals("by a MapReader cursor", TOTAL, sumOfCursor(reader.cursor(null, null, false, 9)));
                    sums += 7;
                }
                return sums;
            }));
        }
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds()));
        stop.set(true);
        pool.shutdown();
        long transfers = 0;
        for (Future<Long> f : writers) {
            transfers += f.get(60, TimeUnit.SECONDS);
        }
        long sums = 0;
        for (Future<Long> f : readers) {
            sums += f.get(60, TimeUnit.SECONDS);
        }
        assertTrue("transfers were made: " + transfers, transfers > 0);
        assertTrue("sums were taken: " + sums, sums > 0);
        long closing = 0;
        try (Transaction tx = store.begin()) {
            for (byte[] v : tx.map("bank").getAll(keys)) {
                closing += asLong(v);
            }
        }
        assertEquals(TOTAL, closing);
    }
}

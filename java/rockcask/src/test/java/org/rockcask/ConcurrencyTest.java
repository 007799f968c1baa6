package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Threads move items between queues in transactions; nothing is lost, duplicated or shared. */
public class ConcurrencyTest {
    private static final int ITEMS = 2_000;
    private static final int THREADS = 4;

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void concurrentMovesConserveItemsAndNeverHandOneItemToTwoTransactions() throws Exception {
        try (Store store = Store.open(tmp.newFolder().toPath().resolve("s"), StoreOptions.defaults().syncOnCommit(false))) {
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < ITEMS; i++) {
                    tx.enqueue("a", ByteBuffer.allocate(4).putInt(i).array());
                }
                tx.commit();
            }
            Set<Integer> inHand = ConcurrentHashMap.newKeySet();
            AtomicLong commits = new AtomicLong();
            AtomicLong rollbacks = new AtomicLong();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            ExecutorService pool = Executors.newFixedThreadPool(THREADS);
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(pool.submit(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    while (System.nanoTime() < until) {
                        String from = rnd.nextBoolean() ? "a" : "b";
                        String to = from.equals("a") ? "b" : "a";
                        List<Integer> mine = new ArrayList<>();
                        try (Transaction tx = store.begin()) {
                            for (Message m : tx.poll(from, 1 + rnd.nextInt(20))) {
                                int item = ByteBuffer.wrap(m.payload()).getInt();
                                assertTrue("item " + item + " handed to two transactions at once", inHand.add(item));
                                mine.add(item);
                                if (rnd.nextBoolean()) {
                                    tx.enqueue(to, m.id());
                                } else {
                                    tx.enqueue(to, m.payload());
                                }
                            }
                            // Items stay claimed until commit/rollback returns; after that
                                // others may legitimately receive them, so let go just before.
                                inHand.removeAll(mine);
                                if (rnd.nextInt(5) == 0) {
                                tx.rollback();
                                rollbacks.incrementAndGet();
                            } else {
                                tx.commit();
                                commits.incrementAndGet();
                            }
                        } finally {
                            inHand.removeAll(mine);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : workers) {
                f.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
            List<Integer> all = new ArrayList<>();
            try (Transaction tx = store.begin()) {
                for (String q : new String[] {"a", "b"}) {
                    for (Message m : tx.peek(q, ITEMS * 2)) {
                        all.add(ByteBuffer.wrap(m.payload()).getInt());
                    }
                }
            }
            Collections.sort(all);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < ITEMS; i++) {
                expected.add(i);
            }
            assertEquals(expected, all);
            assertEquals(ITEMS, store.queueSize("a") + store.queueSize("b"));
            assertTrue("the threads committed work: " + commits, commits.get() > 10);
            assertTrue("some rolled back: " + rollbacks, rollbacks.get() > 0);
        }
    }
}

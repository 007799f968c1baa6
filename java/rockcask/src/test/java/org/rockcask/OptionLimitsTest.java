package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.testsupport.ChildJvm;

/**
 * Every option at its extremes (0, -1, Integer/Long.MAX_VALUE): refused at the option with a
 * message in RockCask's terms, or meaningful; never a crash of the JVM or RocksDB's own words.
 */
public class OptionLimitsTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void workerCountsOutsideOneToSixtyFourAreRefusedAtTheOption() {
        for (int bad : new int[] {0, -1, Integer.MIN_VALUE, Wire.MAX_WORKERS + 1, Integer.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ExportOptions.defaults().workers(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("1 to " + Wire.MAX_WORKERS));
            assertThrows(IllegalArgumentException.class, () -> ImportOptions.defaults().workers(bad));
        }
        assertEquals(Wire.MAX_WORKERS, ExportOptions.defaults().workers(Wire.MAX_WORKERS).workers());
        assertEquals(1, ImportOptions.defaults().workers(1).workers());
    }

    @Test
    public void anExportAndImportWithTheMostWorkersAllowedRunAndAgree() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        Path file = tmp.getRoot().toPath().resolve("s.rcs");
        try (Store store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false))) {
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < 1000; i++) {
                    tx.enqueue("q", new byte[] {(byte) i});
                }
                tx.commit();
            }
            store.exportTo(file, ExportOptions.defaults().workers(Wire.MAX_WORKERS).frameBytes(64));
        }
        Path copy = tmp.getRoot().toPath().resolve("copy");
        Store.importFrom(file, copy, ImportOptions.defaults().workers(Wire.MAX_WORKERS));
        try (Store store = Store.open(copy, StoreOptions.defaults())) {
            assertEquals(1000, store.queueSize("q"));
        }
    }

    @Test
    public void aBlockCacheOfZeroBytesOpensAStoreWithoutABlockCache() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        try (Store store = Store.open(dir, StoreOptions.defaults().blockCacheBytes(0).syncOnCommit(false))) {
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < 1000; i++) {
                    tx.enqueue("q", new byte[] {(byte) i});
                }
                tx.commit();
            }
            store.compact();
            try (Transaction tx = store.begin()) {
                assertEquals(1000, tx.poll("q", 1000).size());
                tx.commit();
            }
            assertEquals(0, store.stats().blockCacheBytes());
        }
    }

    @Test
    public void cacheAndWriteBufferSizesOutOfRangeAreRefusedAtTheOption() {
        StoreOptions d = StoreOptions.defaults();
        for (long bad : new long[] {-1, Long.MIN_VALUE, Wire.MAX_BLOCK_CACHE_BYTES + 1, Long.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.blockCacheBytes(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("blockCacheBytes"));
        }
        for (long bad : new long[] {0, -1, Wire.MIN_WRITE_BUFFER_BYTES - 1, Wire.MAX_WRITE_BUFFER_BYTES + 1, Long.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.writeBufferBytes(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("writeBufferBytes"));
        }
        for (long bad : new long[] {-1, Long.MIN_VALUE, Wire.MAX_MAP_CACHE_BYTES + 1, Long.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.mapCacheBytes(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("mapCacheBytes"));
        }
        assertEquals(Wire.MAX_BLOCK_CACHE_BYTES, d.blockCacheBytes(Wire.MAX_BLOCK_CACHE_BYTES).blockCacheBytes());
        assertEquals(0, d.mapCacheBytes(0).mapCacheBytes());
        for (long bad : new long[] {-1, Long.MIN_VALUE, Wire.MAX_OBJECT_CACHE_BYTES + 1, Long.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.objectCacheBytes(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("objectCacheBytes"));
        }
        assertEquals(0, d.objectCacheBytes(0).objectCacheBytes());
        assertEquals(Wire.MAX_OBJECT_CACHE_BYTES, d.objectCacheBytes(Wire.MAX_OBJECT_CACHE_BYTES).objectCacheBytes());
        for (long bad : new long[] {-1, Long.MIN_VALUE, Wire.MAX_QUEUE_CACHE_BYTES + 1, Long.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.queueCacheBytes(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("queueCacheBytes"));
        }
        assertEquals(16L << 20, d.queueCacheBytes());
        assertEquals(0, d.queueCacheBytes(0).queueCacheBytes());
        assertEquals(Wire.MAX_QUEUE_CACHE_BYTES, d.queueCacheBytes(Wire.MAX_QUEUE_CACHE_BYTES).queueCacheBytes());
        assertEquals(Wire.MIN_WRITE_BUFFER_BYTES, d.writeBufferBytes(Wire.MIN_WRITE_BUFFER_BYTES).writeBufferBytes());
        for (int bad : new int[] {-1, Integer.MIN_VALUE, Wire.MAX_INLINE_PAYLOAD_BYTES + 1, Integer.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.inlinePayloadBytes(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("inlinePayloadBytes"));
        }
        assertEquals(0, d.inlinePayloadBytes());
        assertEquals(Wire.MAX_INLINE_PAYLOAD_BYTES, d.inlinePayloadBytes(Wire.MAX_INLINE_PAYLOAD_BYTES).inlinePayloadBytes());
    }

    @Test
    public void theSmallestAndLargestSizesAllowedOpenAStore() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        Store.open(dir, StoreOptions.defaults().blockCacheBytes(Wire.MAX_BLOCK_CACHE_BYTES).writeBufferBytes(Wire.MIN_WRITE_BUFFER_BYTES)).close();
        Store.open(dir, StoreOptions.defaults().blockCacheBytes(1).writeBufferBytes(Wire.MAX_WRITE_BUFFER_BYTES)).close();
        Store.open(dir, StoreOptions.defaults().mapCacheBytes(Wire.MAX_MAP_CACHE_BYTES)).close();
        Store.open(dir, StoreOptions.defaults().mapCacheBytes(0)).close();
        Store.open(dir, StoreOptions.defaults().objectCacheBytes(Wire.MAX_OBJECT_CACHE_BYTES)).close();
        Store.open(dir, StoreOptions.defaults().objectCacheBytes(0)).close();
        Store.open(dir, StoreOptions.defaults().objectCacheBytes(Integer.MAX_VALUE)).close();
        Store.open(dir, StoreOptions.defaults().inlinePayloadBytes(Wire.MAX_INLINE_PAYLOAD_BYTES)).close();
        Store.open(dir, StoreOptions.defaults().inlinePayloadBytes(0)).close();
        Store.open(dir, StoreOptions.defaults().queueCacheBytes(Wire.MAX_QUEUE_CACHE_BYTES)).close();
        Store.open(dir, StoreOptions.defaults().queueCacheBytes(0)).close();
        Store.open(dir, StoreOptions.defaults().queueCacheBytes(1)).close();
    }

    @Test
    public void pollAndPeekCountsOutsideTheirRangeAreRefused() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        try (Store store = Store.open(dir, StoreOptions.defaults()); Transaction tx = store.begin()) {
            for (int bad : new int[] {0, -1, Integer.MIN_VALUE, (1 << 20) + 1, Integer.MAX_VALUE}) {
                assertThrows(IllegalArgumentException.class, () -> tx.poll("q", bad));
                assertThrows(IllegalArgumentException.class, () -> tx.peek("q", bad));
            }
            assertTrue(tx.poll("q", 1 << 20).isEmpty());
        }
    }

    /**
     * Two payloads of 1 GiB: together more than one Java array holds. In a child JVM with a large
     * heap, as the test JVM's heap is 1 GiB.
     */
    @Test
    public void aPollOfMoreThanAJavaArrayHoldsReturnsFewerAndKeepsTheRest() throws Exception {
        Path dir = tmp.newFolder().toPath().resolve("s");
        List<String> jvmArgs = new ArrayList<>(Arrays.asList("-Xmx5g", "-Xcheck:jni"));
        Process child = ChildJvm.builder(jvmArgs, BigPollChild.class, dir.toString()).redirectErrorStream(true).start();
        String out = new String(child.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(child.waitFor(300, TimeUnit.SECONDS));
        assertEquals(out, 0, child.exitValue());
        assertTrue(out, out.contains("POLL 1 of 2 then 1, peek 1, committed 0 left"));
    }

    /** Child of {@link #aPollOfMoreThanAJavaArrayHoldsReturnsFewerAndKeepsTheRest}. */
    public static final class BigPollChild {
        public static void main(String[] args) {
            byte[] big = new byte[Wire.MAX_PAYLOAD_BYTES];
            try (Store store = Store.open(java.nio.file.Paths.get(args[0]), StoreOptions.defaults().syncOnCommit(false))) {
                try (Transaction tx = store.begin()) {
                    big[0] = 1;
                    tx.enqueue("q", big);
                    tx.commit();
                }
                try (Transaction tx = store.begin()) {
                    big[0] = 2;
                    tx.enqueue("q", big);
                    tx.commit();
                }
                big = null;
                try (Transaction tx = store.begin()) {
                    int peeked = tx.peek("q", 2).size();
                    List<Message> first = tx.poll("q", 2);
                    check(first.size() == 1 && first.get(0).payload()[0] == 1, "first poll");
                    first = null;
                    List<Message> second = tx.poll("q", 2);
                    check(second.size() == 1 && second.get(0).payload()[0] == 2, "second poll");
                    second = null;
                    tx.commit();
                    System.out.println("POLL 1 of 2 then 1, peek " + peeked + ", committed " + store.queueSize("q") + " left");
                }
            }
        }

        private static void check(boolean ok, String what) {
            if (!ok) {
                throw new AssertionError(what);
            }
        }
    }
}

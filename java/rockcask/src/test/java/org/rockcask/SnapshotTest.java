package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class SnapshotTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static final StoreOptions FAST = StoreOptions.defaults().syncOnCommit(false);

    /** Every queue with its entries (id and payload) in order. */
    private static List<String> content(Store store, UUID... objects) {
        List<String> out = new ArrayList<>();
        try (Transaction tx = store.begin()) {
            for (String q : store.queues()) {
                out.add("queue " + q);
                for (Message m : tx.peek(q, 1 << 20)) {
                    out.add(m.id() + "=" + (m.payload() == null ? "-" : Arrays.toString(m.payload())));
                }
            }
            for (UUID id : objects) {
                byte[] p = tx.get(id);
                out.add(id + "->" + (p == null ? "-" : Arrays.toString(p)));
            }
        }
        return out;
    }

    private static UUID fill(Store store) {
        UUID put = UUID.randomUUID();
        try (Transaction tx = store.begin()) {
            for (int i = 0; i < 500; i++) {
                tx.enqueue(i % 2 == 0 ? "parse.out" : "index.in", ("item " + i).getBytes(StandardCharsets.UTF_8));
            }
            tx.put(put, new byte[3000]);
            tx.enqueue("refs", put);
            tx.commit();
        }
        try (Transaction tx = store.begin()) {
            tx.poll("parse.out", 17);
            tx.commit();
        }
        return put;
    }

    private static String sha256(Path file) throws Exception {
        byte[] d = MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
        StringBuilder b = new StringBuilder();
        for (byte x : d) {
            b.append(String.format("%02x", x));
        }
        return b.toString();
    }

    @Test
    public void exportThenImportGivesBackEveryQueueInOrderAndEveryObject() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("store.rcs");
        Path copyDir = tmp.getRoot().toPath().resolve("copy");
        List<SnapshotProgress> reports = new ArrayList<>();
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST.compression(Compression.LZ4))) {
            UUID put = fill(store);
            SnapshotInfo out = store.exportTo(file, ExportOptions.defaults().compression(Compression.ZSTD).progress(reports::add));
            assertEquals(SnapshotInfo.Content.STORE, out.content());
            assertEquals(Compression.ZSTD, out.compression());
            assertEquals(3, out.queues());
            assertEquals(500 - 17 + 1, out.entries());
            assertEquals(Files.size(file), out.fileBytes());
            assertTrue(out.createdBy(), out.createdBy().startsWith("rockcask "));
            assertEquals(store.path().toString(), out.source());
            assertTrue(reports.get(reports.size() - 1).done());

            SnapshotInfo in = Store.importFrom(file, copyDir, ImportOptions.defaults().workers(2));
            assertEquals(out.entries(), in.entries());
            assertEquals(out.objects(), in.objects());
            assertEquals(out.createdAt(), in.createdAt());
            try (Store copy = Store.open(copyDir, FAST)) {
                assertEquals(content(store, put), content(copy, put));
                assertEquals(store.queueSize("parse.out"), copy.queueSize("parse.out"));
            }
            SnapshotInfo verified = Store.verifySnapshot(file, null);
            assertEquals(out.records(), verified.records());
            assertEquals(0, verified.maps());
        }
    }

    @Test
    public void mapsTravelInSnapshotsAndTheirCountsAreInTheInfo() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("maps.rcs");
        Path copyDir = tmp.getRoot().toPath().resolve("maps-copy");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < 30; i++) {
                    tx.map("counts").add("k" + i, i);
                }
                tx.map("names").put("ann", "Ann".getBytes(java.nio.charset.StandardCharsets.UTF_8));
                tx.commit();
            }
            SnapshotInfo out = store.exportTo(file, ExportOptions.defaults());
            assertEquals(2, out.maps());
            assertEquals(31, out.mapEntries());
            SnapshotInfo verified = Store.verifySnapshot(file, null);
            assertEquals(2, verified.maps());
            assertEquals(31, verified.mapEntries());
            SnapshotInfo in = Store.importFrom(file, copyDir, ImportOptions.defaults());
            assertEquals(31, in.mapEntries());
            assertTrue(in.toString(), in.toString().contains("2 maps, 31 map entries"));
        }
        try (Store copy = Store.open(copyDir, FAST)) {
            assertEquals(java.util.Arrays.asList("counts", "names"), copy.maps());
            assertEquals("Ann", new String(copy.mapReader("names").get("ann".getBytes(java.nio.charset.StandardCharsets.UTF_8)), java.nio.charset.StandardCharsets.UTF_8));
            try (Transaction tx = copy.begin()) {
                assertEquals(29, tx.map("counts").counter("k29"));
            }
        }
    }

    @Test
    public void oneWorkerAndFourWorkersWriteFilesWithTheSameSha256() throws Exception {
        Path one = tmp.getRoot().toPath().resolve("one.rcs");
        Path four = tmp.getRoot().toPath().resolve("four.rcs");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            fill(store);
            ExportOptions opts = ExportOptions.defaults().frameBytes(2048).createdAt(Instant.parse("2026-01-01T00:00:00Z"));
            store.exportTo(one, opts.workers(1));
            SnapshotInfo info = store.exportTo(four, opts.workers(4));
            assertTrue("many frames: " + info.frames(), info.frames() > 5);
            assertEquals(Instant.parse("2026-01-01T00:00:00Z"), info.createdAt());
        }
        assertEquals(sha256(one), sha256(four));
    }

    @Test
    public void anExportWhileOtherThreadsCommitHoldsEachTransactionWholeOrNotAtAll() throws Exception {
        Path dir = tmp.newFolder().toPath();
        int n = 3000;
        try (Store store = Store.open(dir, FAST)) {
            try (Transaction tx = store.begin()) {
                for (int i = 0; i < n; i++) {
                    tx.enqueue("in", ByteBuffer.allocate(4).putInt(i).array());
                }
                tx.commit();
            }
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> movers = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                Thread mover = new Thread(() -> {
                    while (!stop.get()) {
                        try (Transaction tx = store.begin()) {
                            List<Message> got = tx.poll("in", 2);
                            if (got.isEmpty()) {
                                return;
                            }
                            for (Message m : got) {
                                tx.enqueue("out", m.payload());
                            }
                            tx.commit();
                        }
                    }
                });
                mover.start();
                movers.add(mover);
            }
            for (int round = 0; round < 4; round++) {
                Path file = tmp.getRoot().toPath().resolve("during" + round + ".rcs");
                store.exportTo(file, ExportOptions.defaults().workers(2));
                Path copyDir = tmp.getRoot().toPath().resolve("copy" + round);
                Store.importFrom(file, copyDir, ImportOptions.defaults());
                try (Store copy = Store.open(copyDir, FAST); Transaction tx = copy.begin()) {
                    List<Integer> seen = Stream.concat(tx.peek("in", n).stream(), tx.peek("out", n).stream())
                            .map(m -> ByteBuffer.wrap(m.payload()).getInt()).sorted().collect(Collectors.toList());
                    assertEquals("round " + round, n, seen.size());
                    for (int i = 0; i < n; i++) {
                        assertEquals(i, (int) seen.get(i));
                    }
                }
            }
            stop.set(true);
            for (Thread t : movers) {
                t.join();
            }
        }
    }

    @Test
    public void damagedSnapshotsThrowSnapshotExceptionNamingTheOffsetAndLeaveNoStore() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("good.rcs");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            fill(store);
            store.exportTo(file, ExportOptions.defaults().frameBytes(1024));
        }
        byte[] good = Files.readAllBytes(file);
        Random random = new Random(42);
        Path bad = tmp.getRoot().toPath().resolve("bad.rcs");
        Path target = tmp.getRoot().toPath().resolve("target");
        int inFrames = 0;
        for (int i = 0; i < 60; i++) {
            byte[] damaged;
            if (i % 2 == 0) {
                damaged = Arrays.copyOf(good, random.nextInt(good.length));
            } else {
                damaged = good.clone();
                damaged[random.nextInt(good.length)] ^= (byte) (1 + random.nextInt(255));
            }
            Files.write(bad, damaged);
            try {
                Store.importFrom(bad, target, ImportOptions.defaults());
                fail("a damaged snapshot was imported (case " + i + ")");
            } catch (SnapshotException e) {
                assertEquals(RockCaskException.Status.BadSnapshot, e.status());
                assertTrue(e.getMessage(), e.offset() >= 0 && e.offset() <= good.length);
                assertTrue(e.getMessage(), e.getMessage().contains("at byte " + e.offset()));
                inFrames += e.frame() >= 0 ? 1 : 0;
            }
            assertFalse("case " + i + " left a store behind", Files.exists(target));
            try {
                Store.verifySnapshot(bad, null);
                fail("verify passed a damaged snapshot (case " + i + ")");
            } catch (SnapshotException expected) {
                // Same checks as an import.
            }
        }
        assertTrue("errors name the frame: " + inFrames, inFrames > 10);
    }

    private static int u32(byte[] b, int at) {
        return ByteBuffer.wrap(b, at, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    @Test
    public void verifySnapshotAndImportFromNameTheFrameWhoseLengthIsDamagedAtItsOffset() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("good.rcs");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            fill(store);
            store.exportTo(file, ExportOptions.defaults().frameBytes(256));
        }
        byte[] bytes = Files.readAllBytes(file);
        // docs/SNAPSHOT_FORMAT.md: frame 0 follows the header; a frame is its fixed bytes
        // (stored length at 12; 20 bytes, 16 in version 1), its body and a 4-byte CRC.
        int fixed = u32(bytes, 8) >= 2 ? 20 : 16;
        int frame0 = 16 + u32(bytes, 12) + 4;
        int frame1 = frame0 + fixed + u32(bytes, frame0 + 12) + 4;
        int frame2 = frame1 + fixed + u32(bytes, frame1 + 12) + 4;
        assertEquals("frame 2 is a records frame", 1, bytes[frame2]);
        // Frame 1's stored length, 4 bytes short: the next "frame" would start inside its body.
        ByteBuffer.wrap(bytes, frame1 + 12, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(u32(bytes, frame1 + 12) - 4);
        Path bad = tmp.getRoot().toPath().resolve("bad.rcs");
        Files.write(bad, bytes);

        SnapshotException verified = null;
        try {
            Store.verifySnapshot(bad, null);
            fail("verify passed a damaged snapshot");
        } catch (SnapshotException e) {
            verified = e;
        }
        assertEquals(verified.getMessage(), frame1, verified.offset());
        assertEquals(verified.getMessage(), 1, verified.frame());
        assertTrue(verified.getMessage(), verified.getMessage().contains("frame header checksum mismatch"));
        // Whatever the number of workers, an import says exactly the same.
        for (int workers : new int[] {1, 2, 5}) {
            Path target = tmp.getRoot().toPath().resolve("target-" + workers);
            try {
                Store.importFrom(bad, target, ImportOptions.defaults().workers(workers));
                fail("a damaged snapshot was imported");
            } catch (SnapshotException e) {
                assertEquals(verified.offset(), e.offset());
                assertEquals(verified.frame(), e.frame());
                assertEquals(verified.getMessage(), e.getMessage());
            }
            assertFalse(Files.exists(target));
        }
    }

    @Test
    public void targetsThatExistAreRefusedAndNothingIsOverwrittenUnlessAsked() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("s.rcs");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            fill(store);
            store.exportTo(file, ExportOptions.defaults());
            try {
                store.exportTo(file, ExportOptions.defaults());
                fail("an existing file was overwritten");
            } catch (RockCaskException e) {
                assertEquals(RockCaskException.Status.TargetExists, e.status());
            }
            store.exportTo(file, ExportOptions.defaults().overwrite(true));
            Path busy = tmp.newFolder().toPath();
            Files.write(busy.resolve("precious.txt"), new byte[] {1});
            try {
                Store.importFrom(file, busy, ImportOptions.defaults());
                fail("imported into a non-empty directory");
            } catch (RockCaskException e) {
                assertEquals(RockCaskException.Status.TargetExists, e.status());
            }
            assertArrayEquals(new byte[] {1}, Files.readAllBytes(busy.resolve("precious.txt")));
            try {
                store.checkpoint(busy);
                fail("checkpoint into a non-empty directory");
            } catch (RockCaskException e) {
                assertEquals(RockCaskException.Status.TargetExists, e.status());
            }
        }
    }

    @Test
    public void aThrowingProgressListenerStopsTheExportAndItsExceptionReachesTheCaller() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("stopped.rcs");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            fill(store);
            IllegalStateException cancel = new IllegalStateException("cancelled by the user");
            try {
                store.exportTo(file, ExportOptions.defaults().frameBytes(512).progress(p -> {
                    throw cancel;
                }));
                fail("the export ignored its listener's exception");
            } catch (IllegalStateException e) {
                assertSame(cancel, e);
            }
            assertFalse(Files.exists(file));
            try (Stream<Path> left = Files.list(tmp.getRoot().toPath())) {
                assertEquals(0, left.filter(p -> p.toString().contains("partial")).count());
            }
            // The store is still fine.
            assertEquals(3, store.queues().size());
        }
    }

    @Test
    public void aListenerMayUseTheStoreButClosingItThereIsRefused() throws Exception {
        Path file = tmp.getRoot().toPath().resolve("listener.rcs");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            fill(store);
            List<Long> sizes = new ArrayList<>();
            store.exportTo(file, ExportOptions.defaults().frameBytes(512).progress(p -> sizes.add(store.queueSize("index.in"))));
            assertTrue(sizes.size() > 1 && sizes.get(0) == 250);
            Store same = store;
            try {
                store.exportTo(file, ExportOptions.defaults().overwrite(true).progress(p -> same.close()));
                fail("closed the store from its own export's listener");
            } catch (IllegalStateException e) {
                assertTrue(e.getMessage(), e.getMessage().contains("progress listener"));
            }
            assertEquals(3, store.queues().size());
        }
    }

    @Test
    public void aCheckpointOpensAsAStoreWithTheContentOfItsMoment() throws Exception {
        Path cp = tmp.getRoot().toPath().resolve("checkpoint");
        try (Store store = Store.open(tmp.newFolder().toPath(), FAST)) {
            UUID put = fill(store);
            List<String> before = content(store, put);
            store.checkpoint(cp);
            try (Transaction tx = store.begin()) {
                tx.poll("index.in", 5);
                tx.commit();
            }
            try (Store copy = Store.open(cp, FAST)) {
                assertEquals(before, content(copy, put));
            }
        }
    }

    @Test
    public void closedStoresAndNullArgumentsAreRefusedCleanly() throws Exception {
        Store store = Store.open(tmp.newFolder().toPath(), FAST);
        store.close();
        Path file = tmp.getRoot().toPath().resolve("x.rcs");
        try {
            store.exportTo(file, ExportOptions.defaults());
            fail();
        } catch (IllegalStateException expected) {
            assertNotNull(expected.getMessage());
        }
        try {
            Store.importFrom(null, file, ImportOptions.defaults());
            fail();
        } catch (NullPointerException expected) {
            assertEquals("file", expected.getMessage());
        }
        try {
            Store.importFrom(tmp.getRoot().toPath().resolve("missing.rcs"), tmp.getRoot().toPath().resolve("y"), ImportOptions.defaults());
            fail();
        } catch (RockCaskException e) {
            assertEquals(RockCaskException.Status.IOError, e.status());
            assertTrue(e.getMessage(), e.getMessage().contains("missing.rcs"));
        }
        try {
            ExportOptions.defaults().workers(0);
            fail();
        } catch (IllegalArgumentException expected) {
            assertNotNull(expected.getMessage());
        }
    }
}

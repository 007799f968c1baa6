package org.rockcask;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class CompressionTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static byte[] text(int n) {
        StringBuilder b = new StringBuilder();
        while (b.length() < n) {
            b.append("Dummy text ");
        }
        return b.substring(0, n).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    public void eachCodecIsFoundByItsCodeAndUnknownCodesAreRefused() {
        for (Compression c : Compression.values()) {
            assertSame(c, Compression.ofCode(c.code()));
        }
        try {
            Compression.ofCode(Compression.values().length);
            fail("an unknown code was accepted");
        } catch (IllegalArgumentException expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("unknown compression code"));
        }
    }

    @Test
    public void everyCodecRoundTripsPerStoreAndPerQueueAndStatsShowTheSaving() throws Exception {
        Path dir = tmp.newFolder().toPath();
        byte[] big = text(20_000);
        byte[] small = text(100);
        UUID id = UUID.randomUUID();
        StoreOptions options = StoreOptions.defaults().compression(Compression.ZSTD).compressionThreshold(256)
                .queueCompression("lz4", Compression.LZ4).queueCompression("snappy", Compression.SNAPPY).queueCompression("none", Compression.NONE);
        try (Store store = Store.open(dir, options)) {
            try (Transaction tx = store.begin()) {
                for (String q : new String[] {"zstd", "lz4", "snappy", "none"}) {
                    tx.enqueue(q, big);
                }
                tx.enqueue("zstd", small);
                tx.put(id, big);
                assertArrayEquals(big, tx.get(id));
                tx.commit();
            }
            StoreStats stats = store.stats();
            assertEquals(5L * big.length + small.length, stats.payloadBytes());
            // The raw queue and the small payload as they are; four big ones compressed.
            assertTrue(stats.toString(), stats.storedPayloadBytes() < big.length + small.length + 4L * big.length / 10);
        }
        // Reopened with another setting: each value says how it was stored.
        try (Store store = Store.open(dir, StoreOptions.defaults()); Transaction tx = store.begin()) {
            for (String q : new String[] {"zstd", "lz4", "snappy", "none"}) {
                List<Message> m = tx.poll(q, 1);
                assertArrayEquals(q, big, m.get(0).payload());
            }
            assertArrayEquals(small, tx.poll("zstd", 1).get(0).payload());
            assertArrayEquals(big, tx.get(id));
            tx.commit();
        }
    }

    @Test
    public void compressionOptionsAreCheckedAndShownInToString() {
        StoreOptions o = StoreOptions.defaults().compression(Compression.LZ4).compressionThreshold(0).queueCompression("q", Compression.ZSTD);
        assertEquals(Compression.LZ4, o.compression());
        assertEquals(Compression.ZSTD, o.queueCompression().get("q"));
        assertEquals(Compression.NONE, StoreOptions.defaults().compression());
        assertTrue(o.toString().contains("LZ4"));
        try {
            StoreOptions.defaults().compressionThreshold(-1);
            throw new AssertionError("negative threshold accepted");
        } catch (IllegalArgumentException expected) {
        }
    }
}

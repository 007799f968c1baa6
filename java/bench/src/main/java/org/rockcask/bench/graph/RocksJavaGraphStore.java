package org.rockcask.bench.graph;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.DataBlockIndexType;
import org.rocksdb.EnvOptions;
import org.rocksdb.IngestExternalFileOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.SstFileWriter;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * RocksJava (rocksdbjni) with its documented settings for point reads: a {@value #CACHE_MIB} MiB
 * LRU block cache (RockCask's default size), bloom filters of 10 bits per key on whole keys, the
 * data block hash index ({@code kDataBlockBinaryAndHash}, one of the settings of
 * {@code OptimizeForPointLookup}: a get finds its key in a block without a binary search), and the
 * index and filter blocks outside the block cache, held by the open table readers (RocksDB's
 * default, the "Block Cache" wiki page: they are then always in memory, and the cache holds data
 * blocks only). No compression, as RockCask stores its objects: a point read decompresses
 * nothing, and the padded payloads are incompressible anyway.
 *
 * <p>Load: the vertices in key order into one SST file ({@code SstFileWriter}, which syncs it
 * when finished), then ingested ({@code ingestExternalFile}, files moved, not copied): the wiki's
 * way to bulk-load sorted data, without a memtable, a write-ahead log or compactions.
 *
 * <p>Reads: one {@code ReadOptions} per tree, each get into direct buffers (no array allocated
 * per get). Statistics are on (ticker counts only); {@link #readCounters} gives the data block
 * hits and misses of the block cache since the store was reopened.
 */
final class RocksJavaGraphStore implements GraphStore {
    static {
        RocksDB.loadLibrary();
    }

    private static final long CACHE_MIB = 64;

    private final Path dir;
    private LRUCache cache;
    private Statistics statistics;
    private Options options;
    private RocksDB db;
    private KeyOrder order;

    RocksJavaGraphStore(Path dir) throws Exception {
        this.dir = dir;
        open();
    }

    private void open() throws Exception {
        cache = new LRUCache(CACHE_MIB << 20);
        statistics = new Statistics();
        options = new Options().setCreateIfMissing(true).setStatistics(statistics).setCompressionType(CompressionType.NO_COMPRESSION)
                .setBottommostCompressionType(CompressionType.NO_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(new BloomFilter(10))
                        .setWholeKeyFiltering(true).setDataBlockIndexType(DataBlockIndexType.kDataBlockBinaryAndHash)
                        .setCacheIndexAndFilterBlocks(false));
        db = RocksDB.open(options, dir.resolve("db").toString());
    }

    @Override
    public void load(GraphSource source) throws Exception {
        order = source.order();
        Path sst = dir.resolve("load.sst");
        try (EnvOptions env = new EnvOptions(); SstFileWriter writer = new SstFileWriter(env, options)) {
            writer.open(sst.toString());
            for (int v : source.verticesInKeyOrder()) {
                writer.put(source.key(v), source.value(v));
            }
            writer.finish();
        }
        try (IngestExternalFileOptions ingest = new IngestExternalFileOptions().setMoveFiles(true)) {
            db.ingestExternalFile(Collections.singletonList(sst.toString()), ingest);
        }
        Files.deleteIfExists(sst);
    }

    @Override
    public void reopen() throws Exception {
        close();
        open();
    }

    @Override
    public VertexReader openReader() {
        ReadOptions read = new ReadOptions();
        ByteBuffer key = ByteBuffer.allocateDirect(256);
        // NOT_FOUND is -1, the negative length ofDirectBuffers takes for "none".
        return VertexReader.ofDirectBuffers(order, (k, into) -> {
            key.clear();
            key.put(k).flip();
            return db.get(read, key, into);
        }, read);
    }

    @Override
    public String readCounters() {
        long hits = statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_HIT);
        long misses = statistics.getTickerCount(TickerType.BLOCK_CACHE_DATA_MISS);
        return hits + misses == 0 ? "" : String.format("%.1f%% of %,d", 100.0 * hits / (hits + misses), hits + misses);
    }

    @Override
    public void close() {
        db.close();
        options.close();
        statistics.close();
        cache.close();
    }
}

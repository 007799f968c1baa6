package org.rockcask.bench.kv;

import java.nio.file.Path;
import java.util.function.Supplier;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.CompressionType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * RocksJava, the same RocksDB as RockCask's, at the settings of the RocksDB wiki's "Setup Options
 * and Basic Tuning" for point reads and small writes: a block-based table with a block cache of
 * {@link KvStore#BLOCK_CACHE_BYTES} (as RockCask's), bloom filters of 10 bits per key, index and
 * filter blocks in the cache with those of level 0 pinned, LZ4, {@code bytes_per_sync} 1 MiB,
 * two background jobs (the machine's cores). Each write is one {@code put} with
 * {@code WriteOptions.setSync(synced)}; reads are plain gets and an iterator for scans (RocksDB
 * reads one consistent state per call). The read-modify-write is a get then a put, as YCSB's own
 * RocksDB binding does it: RocksDB's base API has no transaction, so a concurrent update between
 * them can be lost (RockCask's cannot).
 */
final class RocksJavaKv implements KvStore {
    private final LRUCache cache;
    private final Options options;
    private final RocksDB db;
    private final WriteOptions write;

    RocksJavaKv(Path dir, boolean synced) throws Exception {
        RocksDB.loadLibrary();
        cache = new LRUCache(BLOCK_CACHE_BYTES);
        options = new Options().setCreateIfMissing(true).setMaxBackgroundJobs(2).setBytesPerSync(1L << 20)
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(new BloomFilter(10))
                        .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true));
        db = RocksDB.open(options, dir.toString());
        write = new WriteOptions().setSync(synced);
    }

    @Override
    public void load(long from, long to, Supplier<byte[]> values) throws Exception {
        try (WriteBatch batch = new WriteBatch()) {
            for (long r = from; r < to; r++) {
                batch.put(KvStore.key(r), values.get());
            }
            db.write(write, batch);
        }
    }

    @Override
    public int read(byte[] key) throws Exception {
        byte[] v = db.get(key);
        return v == null ? -1 : v.length;
    }

    @Override
    public void write(byte[] key, byte[] value) throws Exception {
        db.put(write, key, value);
    }

    @Override
    public long scan(byte[] key, int count) {
        long bytes = 0;
        try (RocksIterator it = db.newIterator()) {
            int n = 0;
            for (it.seek(key); it.isValid() && n < count; it.next(), n++) {
                bytes += it.value().length;
            }
        }
        return bytes;
    }

    @Override
    public void readModifyWrite(byte[] key, byte[] value) throws Exception {
        byte[] old = db.get(key);
        byte[] changed = value.clone();
        if (old != null) {
            System.arraycopy(old, FIELD_BYTES, changed, FIELD_BYTES, Math.min(old.length, changed.length) - FIELD_BYTES);
        }
        db.put(write, key, changed);
    }

    @Override
    public void close() {
        db.close();
        write.close();
        options.close();
        cache.close();
    }
}

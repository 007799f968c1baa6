package org.rockcask.bench;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The peer: RocksJava doing the same work as RockCask with the same key layout and the same
 * column family options (entries: queue id + big-endian sequence -> object id + flag; objects:
 * 16-byte id -> flag + payload), one WriteBatch per transaction, synced.
 */
public final class RocksJavaPeer implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private final DBOptions dbOptions;
    private final Cache cache;
    private final ColumnFamilyOptions cfOptions;
    private final ColumnFamilyOptions objectOptions;
    private final List<ColumnFamilyHandle> handles = new ArrayList<>();
    private final RocksDB db;
    private final WriteOptions sync;
    private long tail;

    RocksJavaPeer(Path dir) throws RocksDBException {
        this(dir, dbOptions());
    }

    /** Opens with the given database options (closed with the peer) and RockCask's column family options. */
    public RocksJavaPeer(Path dir, DBOptions dbOptions) throws RocksDBException {
        this.dbOptions = dbOptions;
        cache = new LRUCache(64L << 20);
        cfOptions = columnFamilyOptions(cache);
        // As RockCask's objects: blocks left uncompressed, so a point read decompresses nothing.
        objectOptions = columnFamilyOptions(cache).setCompressionType(CompressionType.NO_COMPRESSION)
                .setBottommostCompressionType(CompressionType.NO_COMPRESSION);
        List<ColumnFamilyDescriptor> cfs = Arrays.asList(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions),
                new ColumnFamilyDescriptor("entries".getBytes(), cfOptions), new ColumnFamilyDescriptor("objects".getBytes(), objectOptions));
        db = RocksDB.open(dbOptions, dir.toString(), cfs, handles);
        sync = new WriteOptions().setSync(true);
    }

    public RocksDB db() {
        return db;
    }

    public ColumnFamilyHandle entries() {
        return handles.get(1);
    }

    public ColumnFamilyHandle objects() {
        return handles.get(2);
    }

    /** Write options of a synced write: the write-ahead log is synced before the write returns. */
    public WriteOptions sync() {
        return sync;
    }

    /**
     * RockCask's database options: among them flushed logs written over rather than new ones
     * grown (2 kept for that) and logs capped at 16 MiB in all, so that this starts soon after
     * opening.
     */
    public static DBOptions dbOptions() {
        return new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true).setDbWriteBufferSize(128L << 20)
                .setMaxBackgroundJobs(2).setRecycleLogFileNum(2).setMaxTotalWalSize(16L << 20);
    }

    /**
     * RockCask's column family options (objects without compression), bloom filters of 10
     * bits per key, indexes and filters in a 64 MiB block cache shared by the column families
     * (RockCask's default; without one RocksJava would use 8 MiB per table factory), those of
     * level 0 pinned there.
     */
    private static ColumnFamilyOptions columnFamilyOptions(Cache cache) {
        return new ColumnFamilyOptions().setWriteBufferSize(64L << 20).setMaxWriteBufferNumber(4)
                .setCompressionType(CompressionType.LZ4_COMPRESSION).setBottommostCompressionType(CompressionType.ZSTD_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setBlockCache(cache).setFilterPolicy(new BloomFilter(10))
                        .setCacheIndexAndFilterBlocks(true).setPinL0FilterAndIndexBlocksInCache(true));
    }

    public static byte[] uuidBytes(java.util.UUID id) {
        return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits()).array();
    }

    /** One transaction: for each id, the object (flag + payload) and a queue entry, then a synced write. */
    void enqueueAll(java.util.UUID[] ids, byte[][] payloads) throws RocksDBException {
        ColumnFamilyHandle entries = entries();
        ColumnFamilyHandle objects = objects();
        try (WriteBatch batch = new WriteBatch()) {
            for (int i = 0; i < ids.length; i++) {
                byte[] key = uuidBytes(ids[i]);
                byte[] value = new byte[payloads[i].length + 1];
                value[0] = 1;
                System.arraycopy(payloads[i], 0, value, 1, payloads[i].length);
                batch.put(objects, key, value);
                byte[] entryValue = Arrays.copyOf(key, 17);
                entryValue[16] = 1;
                batch.put(entries, ByteBuffer.allocate(12).putInt(0).putLong(tail++).array(), entryValue);
            }
            db.write(sync, batch);
        }
    }

    @Override
    public void close() {
        for (ColumnFamilyHandle h : handles) {
            h.close();
        }
        db.close();
        sync.close();
        cfOptions.close();
        objectOptions.close();
        dbOptions.close();
        cache.close();
    }
}

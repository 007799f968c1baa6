package org.rockcask.bench.graph;

import java.io.File;
import java.nio.file.Path;
import org.mapdb.BTreeMap;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.Serializer;

/**
 * MapDB 3.1 as a JVM program keeping a street graph would open it: one file store, memory-mapped
 * ({@code fileMmapEnableIfSupported}: the "much faster storage option" of the {@code DBMaker}
 * javadoc), a BTreeMap of byte-array keys in unsigned order ({@code Serializer.BYTE_ARRAY}).
 * The MapDB book gives BTreeMap, not HTreeMap, for small keys: an HTreeMap's index tree takes
 * more lookups per random get. MapDB 3 has no instance cache any more (2.x's
 * {@code cacheHashTableEnable} and the like are gone): what is read is deserialized again on each
 * get; the memory map keeps the pages.
 *
 * <p>Its documented settings for this work: {@code fileMmapPreclearDisable} (a growing mapped
 * file is not zeroed first, for a faster load), {@code cleanerHackEnable} (unmaps the file at
 * close instead of waiting for the GC), {@code concurrencyDisable} (no locks: one thread only
 * reads and writes). The padded variant's values (about 850 bytes beside keys of at most 16) are
 * stored outside the tree's nodes ({@code valuesOutsideNodesEnable}, the book's advice for large
 * values: a get then deserializes one value, not the 32 of a leaf); the small variant's stay in
 * the nodes. The load goes through the data pump ({@code createFromSink}), which builds the tree
 * bottom up from keys given in ascending order. No write-ahead log ({@code transactionEnable}
 * off): the load ends with {@code commit()}, which syncs the file.
 */
final class MapDbGraphStore implements GraphStore {
    private static final String MAP = "graph";

    private final File file;
    private DB db;
    private BTreeMap<byte[], byte[]> map;
    private KeyOrder order;

    MapDbGraphStore(Path dir) {
        file = dir.resolve("graph.mapdb").toFile();
        db = open();
    }

    private DB open() {
        return DBMaker.fileDB(file).fileMmapEnableIfSupported().fileMmapPreclearDisable().cleanerHackEnable().concurrencyDisable().make();
    }

    @Override
    public void load(GraphSource source) {
        order = source.order();
        DB.TreeMapMaker<byte[], byte[]> maker = db.treeMap(MAP, Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY);
        if (source.variant() == Variant.PADDED) {
            maker.valuesOutsideNodesEnable();
        }
        DB.TreeMapSink<byte[], byte[]> sink = maker.createFromSink();
        for (int v : source.verticesInKeyOrder()) {
            sink.put(source.key(v), source.value(v));
        }
        map = sink.create();
        db.commit();
    }

    @Override
    public void reopen() {
        db.close();
        db = open();
        map = db.treeMap(MAP, Serializer.BYTE_ARRAY, Serializer.BYTE_ARRAY).open();
    }

    @Override
    public VertexReader openReader() {
        return VertexReader.ofArrays(order, map::get);
    }

    @Override
    public void close() {
        db.close();
    }
}

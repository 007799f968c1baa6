package org.rockcask.bench.peers;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;

/**
 * SQLite through sqlite-jdbc: {@code entries(queue, seq, payload)} and {@code objects(id,
 * payload)}, both {@code WITHOUT ROWID} (one B-tree per table, keyed by its primary key). SQLite's
 * page on WITHOUT ROWID tables advises rows under about 1/20 of a page: the 256-byte objects are
 * over that at the default 4 KiB, so pages are 8 KiB. A 64 MiB page cache, as RockCask's block
 * cache. Prepared statements, one SQL transaction per transaction of the workload.
 *
 * <p>Durable commit: {@code journal_mode=WAL} with {@code synchronous=FULL}, under which "the WAL
 * file is synchronized before each commit" (the pragma page; NORMAL would lose the last commits
 * on power loss).
 *
 * <p>The queue's head and tail sequence numbers are kept in memory after {@link #fillQueue}, so a
 * poll is a primary-key range read and a range delete.
 */
final class SqlitePeer implements Peer {
    private final Connection db;
    private final PreparedStatement insertEntry;
    private final PreparedStatement selectEntries;
    private final PreparedStatement deleteEntries;
    private final PreparedStatement insertObject;
    private final PreparedStatement selectObject;
    private long head;
    private long tail;

    SqlitePeer(Path dir) throws SQLException {
        db = DriverManager.getConnection("jdbc:sqlite:" + dir.resolve("store.db"));
        try (Statement s = db.createStatement()) {
            s.execute("PRAGMA page_size=8192");
            s.execute("PRAGMA journal_mode=WAL");
            s.execute("PRAGMA synchronous=FULL");
            s.execute("PRAGMA cache_size=-65536");
            s.execute("CREATE TABLE IF NOT EXISTS entries(queue INTEGER, seq INTEGER, payload BLOB, PRIMARY KEY(queue, seq)) WITHOUT ROWID");
            s.execute("CREATE TABLE IF NOT EXISTS objects(id BLOB PRIMARY KEY, payload BLOB) WITHOUT ROWID");
        }
        db.setAutoCommit(false);
        insertEntry = db.prepareStatement("INSERT INTO entries(queue, seq, payload) VALUES (" + Keys.QUEUE_ID + ", ?, ?)");
        selectEntries = db.prepareStatement("SELECT payload FROM entries WHERE queue = " + Keys.QUEUE_ID + " AND seq >= ? AND seq < ? ORDER BY seq");
        deleteEntries = db.prepareStatement("DELETE FROM entries WHERE queue = " + Keys.QUEUE_ID + " AND seq >= ? AND seq < ?");
        insertObject = db.prepareStatement("INSERT OR REPLACE INTO objects(id, payload) VALUES (?, ?)");
        selectObject = db.prepareStatement("SELECT payload FROM objects WHERE id = ?");
    }

    @Override
    public void fillQueue(int depth, byte[] payload) throws SQLException {
        byte[][] all = new byte[depth][];
        java.util.Arrays.fill(all, payload);
        enqueueAll(all);
    }

    @Override
    public long cycle(int polls, byte[][] payloads) throws SQLException {
        long bytes = 0;
        long end = Math.min(tail, head + polls);
        if (end > head) {
            selectEntries.setLong(1, head);
            selectEntries.setLong(2, end);
            try (ResultSet rs = selectEntries.executeQuery()) {
                while (rs.next()) {
                    bytes += rs.getBytes(1).length;
                }
            }
            deleteEntries.setLong(1, head);
            deleteEntries.setLong(2, end);
            deleteEntries.executeUpdate();
        }
        for (byte[] p : payloads) {
            insertEntry.setLong(1, tail++);
            insertEntry.setBytes(2, p);
            insertEntry.addBatch();
        }
        insertEntry.executeBatch();
        db.commit();
        head = end;
        return bytes;
    }

    @Override
    public void enqueueAll(byte[][] payloads) throws SQLException {
        cycle(0, payloads);
    }

    @Override
    public void putObjects(UUID[] ids, byte[][] payloads) throws Exception {
        Batches.sum(ids.length, PUT_BATCH, (from, to) -> {
            for (int i = from; i < to; i++) {
                insertObject.setBytes(1, Keys.object(ids[i]));
                insertObject.setBytes(2, payloads[i]);
                insertObject.addBatch();
            }
            insertObject.executeBatch();
            db.commit();
            return 0;
        });
    }

    @Override
    public long readObjects(UUID[] ids, int perTransaction) throws Exception {
        return Batches.sum(ids.length, perTransaction, (from, to) -> {
            long bytes = 0;
            for (int i = from; i < to; i++) {
                selectObject.setBytes(1, Keys.object(ids[i]));
                try (ResultSet rs = selectObject.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("object " + ids[i] + " missing");
                    }
                    bytes += rs.getBytes(1).length;
                }
            }
            // Ends the read transaction.
            db.commit();
            return bytes;
        });
    }

    @Override
    public void close() throws SQLException {
        db.close();
    }
}

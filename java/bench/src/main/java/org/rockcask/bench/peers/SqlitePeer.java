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
 *
 * <p>Concurrent components: SQLite allows one writer at a time per database; in WAL mode
 * readers do not block it. Each thread gets its own connection (a connection is not for
 * concurrent use), opened with a busy timeout of 60 s ({@code busy_timeout}: SQLite's busy
 * handler sleeps and retries while another connection writes) and {@code BEGIN IMMEDIATE}
 * transactions, which take the write lock at the start: a deferred transaction that reads and
 * then writes can fail with SQLITE_BUSY at once, without the busy handler, when another
 * connection wrote meanwhile (the "BEGIN" and WAL pages). The connection stays in auto-commit
 * mode and runs {@code BEGIN IMMEDIATE} and {@code COMMIT} itself: with auto-commit off,
 * sqlite-jdbc begins the next transaction as soon as one commits, which in IMMEDIATE mode
 * would hold the write lock between transactions. Each commit syncs the WAL on its own.
 */
final class SqlitePeer implements Peer {
    private final String url;
    private final Connection db;
    private final PreparedStatement insertEntry;
    private final PreparedStatement selectEntries;
    private final PreparedStatement deleteEntries;
    private final PreparedStatement insertObject;
    private final PreparedStatement selectObject;
    private long head;
    private long tail;

    SqlitePeer(Path dir) throws SQLException {
        url = "jdbc:sqlite:" + dir.resolve("store.db");
        db = DriverManager.getConnection(url);
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
    public java.util.List<Component> components(int first, int count) throws SQLException {
        java.util.List<Component> out = new java.util.ArrayList<>();
        for (int i = first; i < first + count; i++) {
            // Queue 0 is the single-queue workloads' (Keys.QUEUE_ID): components start at 1.
            QueueComponent c = new QueueComponent(i + 1);
            components.add(c);
            out.add(c);
        }
        return out;
    }

    /** The components' connections, closed with the peer. */
    private final java.util.List<QueueComponent> components = new java.util.ArrayList<>();

    /** One component's queue on a connection of its own. */
    private final class QueueComponent implements Component {
        private final Connection connection;
        private final Statement transaction;
        private final PreparedStatement insert;
        private final PreparedStatement select;
        private final PreparedStatement delete;
        private long head;
        private long tail;

        QueueComponent(int queue) throws SQLException {
            java.util.Properties settings = new java.util.Properties();
            settings.setProperty("busy_timeout", "60000");
            settings.setProperty("journal_mode", "WAL");
            settings.setProperty("synchronous", "FULL");
            connection = DriverManager.getConnection(url, settings);
            try (Statement s = connection.createStatement()) {
                s.execute("PRAGMA cache_size=-65536");
            }
            transaction = connection.createStatement();
            insert = connection.prepareStatement("INSERT INTO entries(queue, seq, payload) VALUES (" + queue + ", ?, ?)");
            select = connection.prepareStatement("SELECT payload FROM entries WHERE queue = " + queue + " AND seq >= ? AND seq < ? ORDER BY seq");
            delete = connection.prepareStatement("DELETE FROM entries WHERE queue = " + queue + " AND seq >= ? AND seq < ?");
        }

        @Override
        public void fill(int depth, byte[] payload) throws SQLException {
            byte[][] all = new byte[depth][];
            java.util.Arrays.fill(all, payload);
            cycle(0, all);
        }

        @Override
        public long cycle(int polls, byte[][] payloads) throws SQLException {
            long bytes = 0;
            long end = Math.min(tail, head + polls);
            transaction.execute("BEGIN IMMEDIATE");
            try {
                if (end > head) {
                    select.setLong(1, head);
                    select.setLong(2, end);
                    try (ResultSet rs = select.executeQuery()) {
                        while (rs.next()) {
                            bytes += rs.getBytes(1).length;
                        }
                    }
                    delete.setLong(1, head);
                    delete.setLong(2, end);
                    delete.executeUpdate();
                }
                for (byte[] p : payloads) {
                    insert.setLong(1, tail);
                    insert.setBytes(2, p);
                    insert.addBatch();
                    tail++;
                }
                insert.executeBatch();
                transaction.execute("COMMIT");
            } catch (SQLException | RuntimeException e) {
                transaction.execute("ROLLBACK");
                throw e;
            }
            head = end;
            return bytes;
        }
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
        for (QueueComponent c : components) {
            c.connection.close();
        }
        db.close();
    }
}

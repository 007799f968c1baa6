package org.rockcask;

import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The pairs of a key range of one map, in key order or reversed, as one transaction sees them
 * ({@link TxMap#cursor}): read a page at a time with {@link TxMap#scan}, each page at most its
 * page size in pairs and {@link Store#MAX_RESULT_BYTES} in keys and values (a page cut at that
 * bound is followed by the next, not taken for the end), so a range of any size is walked in
 * bounded memory. Each page is read when the previous one is used up, from the transaction's
 * snapshot, and sees the transaction's own writes as they are then: a key written or deleted by the transaction
 * beyond the pages already read is seen as written. Like scans, pages are not checked at
 * commit.
 *
 * <p>A cursor belongs to its transaction: once the transaction is committed, rolled back or
 * closed, {@link #hasNext} and {@link #next} throw {@link IllegalStateException}. Closing the
 * cursor early drops the page it holds. A cursor from a {@link MapReader} has a read-only
 * transaction of its own, which holds its snapshot until the cursor is read to the end or
 * closed: close one you leave early (try-with-resources).
 */
public final class MapCursor implements Iterator<Map.Entry<byte[], byte[]>>, AutoCloseable {
    /** Pairs read per native call by {@link TxMap#cursor(byte[], byte[], boolean)}. */
    public static final int DEFAULT_PAGE = 1_000;

    private final TxMap map;
    private final boolean reverse;
    private final int pageSize;
    /** The range not read yet: {@code [from, to)}, {@code null} for unbounded. */
    private byte[] from;
    private byte[] to;
    private List<Map.Entry<byte[], byte[]>> page = Collections.emptyList();
    private int at;
    private boolean readAll;
    private boolean closed;
    /** The read-only transaction this cursor owns ({@link MapReader#cursor}), ended with it; null when the caller's. */
    private Transaction owned;
    private boolean ownsTransaction;

    MapCursor(TxMap map, byte[] from, byte[] to, boolean reverse, int pageSize) {
        this.map = map;
        this.from = from == null ? null : from.clone();
        this.to = to == null ? null : to.clone();
        this.reverse = reverse;
        this.pageSize = pageSize;
    }

    /** This cursor, ending {@code tx} (its own read-only transaction) when it is read to the end or closed. */
    MapCursor owning(Transaction tx) {
        owned = tx;
        ownsTransaction = true;
        return this;
    }

    @Override
    public boolean hasNext() {
        if (closed) {
            throw new IllegalStateException("cursor over map '" + map.name() + "' is closed");
        }
        if (!ownsTransaction) {
            // The caller's transaction: the cursor ends with it.
            map.transaction().ensureOpen();
        }
        if (at < page.size()) {
            return true;
        }
        if (readAll) {
            return false;
        }
        readPage();
        if (readAll) {
            endOwned();
        }
        return at < page.size();
    }

    @Override
    public Map.Entry<byte[], byte[]> next() {
        if (!hasNext()) {
            throw new NoSuchElementException("no more pairs in map '" + map.name() + "'");
        }
        return page.get(at++);
    }

    private void readPage() {
        byte[] packed = map.scanPacked(from, to, reverse, pageSize);
        page = Wire.pairs(packed);
        at = 0;
        readAll = page.size() < pageSize && !Wire.cut(packed);
        if (!page.isEmpty()) {
            byte[] last = page.get(page.size() - 1).getKey();
            if (reverse) {
                to = last;
            } else {
                // The first key after `last`: `last` followed by a zero byte.
                from = Arrays.copyOf(last, last.length + 1);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        page = Collections.emptyList();
        endOwned();
    }

    private void endOwned() {
        if (owned != null) {
            owned.close();
            owned = null;
        }
    }
}

package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;
import org.rockcask.CasketSnapshots;
import org.rockcask.ExportOptions;
import org.rockcask.ImportOptions;
import org.rockcask.SnapshotException;
import org.rockcask.SnapshotInfo;
import org.rockcask.Store;

/** Databases of the drop-in saved to a snapshot file and restored, through org.rockcask.CasketSnapshots. */
public class SnapshotTest extends CasketTestBase {
    @Test
    public void aDatabaseWithDuplicatesRoundTripsInItsKeyOrder() throws Exception {
        String src = path("src.tcb");
        BDB db = bdb();
        db.setcmpfunc(BDB.CMPDECIMAL);
        assertTrue(db.open(src, BDB.OWRITER | BDB.OCREAT));
        for (int i = 0; i < 500; i++) {
            assertTrue(db.putdup(b(Integer.toString(i % 37)), b("value " + i)));
        }
        assertTrue(db.close());

        Path file = tmp.getRoot().toPath().resolve("db.rcs");
        SnapshotInfo out = CasketSnapshots.exportTo(Paths.get(src), file, ExportOptions.defaults().frameBytes(1024));
        assertEquals(SnapshotInfo.Content.CASKET, out.content());
        assertEquals(500, out.values());
        assertEquals(37, out.keys());

        String copy = path("copy.tcb");
        SnapshotInfo in = CasketSnapshots.importFrom(file, Paths.get(copy), ImportOptions.defaults());
        assertEquals(out.values(), in.values());
        BDB back = bdb();
        back.setcmpfunc(BDB.CMPDECIMAL);
        assertTrue(back.open(copy, BDB.OREADER));
        assertEquals(500, back.rnum());
        @SuppressWarnings("unchecked")
        List<byte[]> sevens = back.getlist(b("7"));
        assertEquals(14, sevens.size());
        assertEquals("value 7", new String(sevens.get(0), StandardCharsets.UTF_8));
        // Keys come back in decimal order: 0, 1, 2, ..., 36.
        BDBCUR cur = new BDBCUR(back);
        assertTrue(cur.first());
        assertEquals("0", cur.key2());
        assertTrue(cur.last());
        assertEquals("36", cur.key2());
    }

    @Test
    public void damagedFilesAndWrongTargetsAreRefusedAndLeaveNothing() throws Exception {
        String src = path("src.tcb");
        BDB db = bdb();
        assertTrue(db.open(src, BDB.OWRITER | BDB.OCREAT));
        assertTrue(db.put("k", "v"));
        assertTrue(db.close());
        Path file = tmp.getRoot().toPath().resolve("db.rcs");
        CasketSnapshots.exportTo(Paths.get(src), file, ExportOptions.defaults());

        byte[] good = Files.readAllBytes(file);
        Path cut = tmp.getRoot().toPath().resolve("cut.rcs");
        Files.write(cut, Arrays.copyOf(good, good.length - 20));
        String target = path("target.tcb");
        try {
            CasketSnapshots.importFrom(cut, Paths.get(target), ImportOptions.defaults());
            fail("a truncated snapshot was imported");
        } catch (SnapshotException e) {
            assertTrue(e.getMessage(), e.offset() > 0);
        }
        assertFalse(Files.exists(Paths.get(target)));
        assertFalse(Files.exists(Paths.get(target + ".rockcask")));
        try {
            // A database snapshot is not a store snapshot.
            Store.importFrom(file, tmp.getRoot().toPath().resolve("store"), ImportOptions.defaults());
            fail("a database snapshot was imported as a store");
        } catch (SnapshotException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("casket"));
        }
        try {
            CasketSnapshots.importFrom(file, Paths.get(src), ImportOptions.defaults());
            fail("imported over an existing database");
        } catch (org.rockcask.RockCaskException e) {
            assertEquals(org.rockcask.RockCaskException.Status.TargetExists, e.status());
        }
    }

    @Test
    public void aDatabaseOrderedByAJavaComparatorIsRefusedWithTheReason() {
        String src = path("cmp.tcb");
        BDB db = bdb();
        assertTrue(db.setcomparator(new CasketChild.Reverse()));
        assertTrue(db.open(src, BDB.OWRITER | BDB.OCREAT));
        assertTrue(db.put("k", "v"));
        assertTrue(db.close());
        try {
            CasketSnapshots.exportTo(Paths.get(src), tmp.getRoot().toPath().resolve("x.rcs"), ExportOptions.defaults());
            fail("exported a database whose order lives in Java");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("comparator"));
        }
    }
}

package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import org.junit.Assume;
import org.junit.Test;

/**
 * A database's path crosses to the native side as the UTF-8 bytes of its string, as a store's
 * does: the file is the one {@code java.io.File} names, characters beyond U+FFFF included (which
 * JNI's modified UTF-8 would spell otherwise), and a string with no UTF-8 form is refused.
 */
public class CasketPathsTest extends CasketTestBase {
    private static final String NAME = "caf\u00e9-\u6f22-\ud83d\ude00";

    @Test
    public void aPathBeyondTheBasicPlaneIsTheFileJavaSees() {
        // Java's own file names follow the platform's encoding; this is about UTF-8 platforms.
        Assume.assumeTrue(StandardCharsets.UTF_8.name().equals(System.getProperty("sun.jnu.encoding")));
        String path = path(NAME + ".tcb");
        BDB db = writer(path);
        assertTrue(db.put("k", "v"));
        assertTrue(new File(path).isFile());
        String copy = path(NAME + "-copy.tcb");
        assertTrue(db.errmsg(), db.copy(copy));
        assertTrue(new File(copy).isFile());
        assertTrue(db.close());
        assertEquals("v", openBdb(copy, BDB.OREADER).get("k"));
        assertTrue(new File(path).delete());
        assertEquals("a deleted path opens as a new database", 0, writer(path).rnum());
    }

    @Test
    public void aPathWithoutAUtf8FormIsRefusedWithEinvalid() {
        BDB db = bdb();
        assertFalse(db.open(path("lone-\ud800.tcb"), BDB.OWRITER | BDB.OCREAT));
        assertEquals(BDB.EINVALID, db.ecode());
        assertTrue(db.errmsg(), db.errmsg().contains("has no UTF-8 form"));
        // Converted as every RockCask name is: the message names the argument and the index.
        String[] lone = {"\ud800", "\udc00", "a\ud800b"};
        int[] at = {0, 0, 1};
        for (int i = 0; i < lone.length; i++) {
            String p = path(lone[i] + ".tcb");
            int index = p.length() - ".tcb".length() - lone[i].length() + at[i];
            for (AbstractDB d : new AbstractDB[] {bdb(), hdb()}) {
                assertFalse(d.open(p, BDB.OWRITER | BDB.OCREAT));
                assertEquals(BDB.EINVALID, d.ecode());
                assertTrue(d.errmsg(), d.errmsg().startsWith("invalid operation: path \""));
                assertTrue(d.errmsg(), d.errmsg().contains("at index " + index + " of its " + p.length() + " chars"));
            }
        }
        BDB open = writer(path("ok.tcb"));
        assertFalse(open.copy(path("lone-\udc00.tcb")));
        assertEquals(BDB.EINVALID, open.ecode());
        assertFalse(new File(tmp.getRoot(), "lone-?.tcb").exists());
    }
}

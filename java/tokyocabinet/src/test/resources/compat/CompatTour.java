import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import tokyocabinet.BDB;
import tokyocabinet.BDBCUR;
import tokyocabinet.HDB;
import tokyocabinet.Util;

/**
 * A scripted tour of the Tokyo Cabinet API. Compiled against the original binding's jar, then
 * run once on the original and once on the drop-in: each line is "label: result [ecode]", and
 * the two outputs must agree (except where the drop-in documents a difference).
 * Usage: CompatTour DIR
 */
public class CompatTour {
    static String dir;

    /** The error code is shown only after a failure: what a successful call leaves in it is not specified. */
    static void p(String label, Object result, int ecode) {
        boolean failed = result == null || Boolean.FALSE.equals(result) || Integer.valueOf(-1).equals(result)
                || Integer.valueOf(Integer.MIN_VALUE).equals(result) || (result instanceof Double && ((Double) result).isNaN());
        System.out.println(label + ": " + show(result) + (failed ? " [ecode " + ecode + "]" : ""));
    }

    static String show(Object o) {
        if (o instanceof byte[]) {
            return "bytes" + Arrays.toString((byte[]) o);
        }
        if (o instanceof List) {
            List<String> out = new ArrayList<>();
            for (Object e : (List<?>) o) {
                out.add(show(e));
            }
            return out.toString();
        }
        return String.valueOf(o);
    }

    public static void main(String[] args) {
        dir = args[0];
        records();
        cursors();
        transactions();
        orders();
        errors();
        hash();
        util();
    }

    static BDB fresh(String name, int cmp) {
        BDB b = new BDB();
        if (cmp >= 0) {
            b.setcmpfunc(cmp);
        }
        if (!b.open(dir + File.separator + name, BDB.OWRITER | BDB.OCREAT | BDB.OTRUNC)) {
            throw new IllegalStateException("open " + name + ": " + b.errmsg());
        }
        return b;
    }

    static void records() {
        BDB b = fresh("records.tcb", -1);
        p("putdup q 1", b.putdup("q", "1"), b.ecode());
        p("putdup q 2", b.putdup("q", "2"), b.ecode());
        p("putdup q 3", b.putdup("q", "3"), b.ecode());
        p("getlist q", b.getlist("q"), b.ecode());
        p("get q", b.get("q"), b.ecode());
        p("vsiz q", b.vsiz("q"), b.ecode());
        p("put q one", b.put("q", "one"), b.ecode());
        p("getlist q after put", b.getlist("q"), b.ecode());
        p("rnum", b.rnum(), b.ecode());
        p("out q", b.out("q"), b.ecode());
        p("getlist q after out", b.getlist("q"), b.ecode());
        p("putkeep q", b.putkeep("q", "x"), b.ecode());
        p("putkeep k", b.putkeep("k", "v"), b.ecode());
        p("putcat k", b.putcat("k", "w"), b.ecode());
        p("putcat new", b.putcat("new", "n"), b.ecode());
        p("get k", b.get("k"), b.ecode());
        List<Object> list = new ArrayList<>();
        list.add("first".getBytes());
        list.add("second".getBytes());
        p("putlist bytes", b.putlist("l".getBytes(), list), b.ecode());
        p("getlist l", b.getlist("l"), b.ecode());
        b.putdup("q", "4");
        // Documented differences are labelled "differs": the test checks each side's value.
        p("differs vnum q", b.vnum("q"), b.ecode());
        p("outlist q", b.outlist("q"), b.ecode());
        p("outlist q again", b.outlist("q"), b.ecode());
        p("get q gone", b.get("q"), b.ecode());
        p("getlist q gone", b.getlist("q"), b.ecode());
        p("vsiz q gone", b.vsiz("q"), b.ecode());
        p("out gone", b.out("gone"), b.ecode());
        p("addint n 5", b.addint("n", 5), b.ecode());
        p("addint n -7", b.addint("n", -7), b.ecode());
        p("addint n 0", b.addint("n", 0), b.ecode());
        p("get n bytes", b.get("n".getBytes()), b.ecode());
        p("addint k (not 4 bytes)", b.addint("k", 1), b.ecode());
        p("adddouble d 1.5", b.adddouble("d", 1.5), b.ecode());
        p("adddouble d 0.25", b.adddouble("d", 0.25), b.ecode());
        p("adddouble k", b.adddouble("k", 1.0), b.ecode());
        for (String k : new String[] {"a", "ab", "abc", "b", "c"}) {
            b.putdup(k, k.toUpperCase());
        }
        b.putdup("ab", "AB2");
        // (The original binding crashes the JVM on a null range bound, so none is used here.)
        p("range a..z", b.range("a".getBytes(), true, "z".getBytes(), true, -1), b.ecode());
        p("range ab..c excl", b.range("ab", false, "c", false, -1), b.ecode());
        p("range a..b incl max 2", b.range("a", true, "b", true, 2), b.ecode());
        p("range empty", b.range("x", true, "y", true, -1), b.ecode());
        p("fwmkeys ab", b.fwmkeys("ab", -1), b.ecode());
        p("fwmkeys all max 3", b.fwmkeys("", 3), b.ecode());
        p("fwmkeys none", b.fwmkeys("zz", -1), b.ecode());
        p("iterinit", b.iterinit(), b.ecode());
        List<String> keys = new ArrayList<>();
        for (String k; (k = b.iternext2()) != null;) {
            keys.add(k);
        }
        p("iternext all", keys, b.ecode());
        p("rnum end", b.rnum(), b.ecode());
        p("path ends", b.path().endsWith("records.tcb"), b.ecode());
        p("fsiz positive", b.fsiz() > 0, b.ecode());
        p("sync", b.sync(), b.ecode());
        p("optimize", b.optimize(), b.ecode());
        p("copy", b.copy(dir + File.separator + "copy.tcb"), b.ecode());
        p("differs copy @true", b.copy("@true"), b.ecode());
        p("vanish", b.vanish(), b.ecode());
        p("rnum vanished", b.rnum(), b.ecode());
        p("iterinit empty", b.iterinit(), b.ecode());
        p("close", b.close(), b.ecode());
        BDB c = new BDB();
        p("open copy reader", c.open(dir + File.separator + "copy.tcb", BDB.OREADER), c.ecode());
        p("copy get k", c.get("k"), c.ecode());
        p("copy rnum", c.rnum(), c.ecode());
        p("reader put", c.put("x", "y"), c.ecode());
        p("reader tranbegin", c.tranbegin(), c.ecode());
        p("copy close", c.close(), c.ecode());
    }

    static void cursors() {
        BDB b = fresh("cursors.tcb", -1);
        BDBCUR cur = new BDBCUR(b);
        p("cur first empty", cur.first(), b.ecode());
        p("cur key unpositioned", cur.key(), b.ecode());
        b.putdup("a", "a1");
        b.putdup("b", "b1");
        b.putdup("b", "b2");
        b.putdup("c", "c1");
        p("cur jump aa", cur.jump("aa"), b.ecode());
        p("cur key2", cur.key2(), b.ecode());
        p("cur val2", cur.val2(), b.ecode());
        p("cur put before", cur.put("b0", BDBCUR.CPBEFORE), b.ecode());
        p("cur val after before", cur.val2(), b.ecode());
        p("cur next", cur.next(), b.ecode());
        p("cur put after", cur.put("b1.5", BDBCUR.CPAFTER), b.ecode());
        p("cur val after after", cur.val2(), b.ecode());
        p("cur next 2", cur.next(), b.ecode());
        p("cur put current", cur.put("B2", BDBCUR.CPCURRENT), b.ecode());
        p("getlist b", b.getlist("b"), b.ecode());
        p("cur out", cur.out(), b.ecode());
        p("cur key after out", cur.key2(), b.ecode());
        p("cur prev", cur.prev(), b.ecode());
        p("cur val prev", cur.val2(), b.ecode());
        p("cur last", cur.last(), b.ecode());
        p("cur key last", cur.key2(), b.ecode());
        p("cur next at end", cur.next(), b.ecode());
        p("cur first", cur.first(), b.ecode());
        p("cur prev at start", cur.prev(), b.ecode());
        List<String> walk = new ArrayList<>();
        if (cur.first()) {
            do {
                walk.add(cur.key2() + "=" + cur.val2());
            } while (cur.next());
        }
        p("cur walk", walk, b.ecode());
        p("cur jump past end", cur.jump("zzz"), b.ecode());
        p("rnum", b.rnum(), b.ecode());
        b.close();
    }

    static void transactions() {
        BDB b = fresh("tx.tcb", -1);
        b.put("keep", "v0");
        p("trancommit no tx", b.trancommit(), b.ecode());
        p("tranabort no tx", b.tranabort(), b.ecode());
        p("tranbegin", b.tranbegin(), b.ecode());
        b.putdup("keep", "v1");
        b.put("new", "x");
        p("get new in tx", b.get("new"), b.ecode());
        p("rnum in tx", b.rnum(), b.ecode());
        p("tranabort", b.tranabort(), b.ecode());
        p("rnum after abort", b.rnum(), b.ecode());
        p("getlist keep after abort", b.getlist("keep"), b.ecode());
        p("get new after abort", b.get("new"), b.ecode());
        p("tranbegin 2", b.tranbegin(), b.ecode());
        b.put("committed", "c");
        p("trancommit", b.trancommit(), b.ecode());
        p("tranbegin 3", b.tranbegin(), b.ecode());
        b.put("uncommitted", "u");
        p("close in tx", b.close(), b.ecode());
        BDB r = new BDB();
        p("reopen", r.open(dir + File.separator + "tx.tcb", BDB.OWRITER), r.ecode());
        p("get committed", r.get("committed"), r.ecode());
        p("get uncommitted", r.get("uncommitted"), r.ecode());
        p("rnum reopened", r.rnum(), r.ecode());
        r.close();
    }

    static void orders() {
        BDB d = fresh("decimal.tcb", BDB.CMPDECIMAL);
        for (String k : new String[] {"10", "9", "-1.5", "-1.2", "2.25", "2.3", "abc", "0.5"}) {
            d.put(k, k);
        }
        p("decimal order", keys(d), d.ecode());
        d.close();
        BDB i = fresh("int32.tcb", BDB.CMPINT32);
        for (int v : new int[] {300, -7, 5, Integer.MIN_VALUE, 0}) {
            i.put(Util.packint(v), Util.packint(v));
        }
        List<Integer> ints = new ArrayList<>();
        BDBCUR ic = new BDBCUR(i);
        if (ic.first()) {
            do {
                ints.add(Util.unpackint(ic.key()));
            } while (ic.next());
        }
        p("int32 order", ints, i.ecode());
        i.close();
        BDB l = fresh("int64.tcb", BDB.CMPINT64);
        for (long v : new long[] {1L << 40, -1L, 2L}) {
            l.put(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder()).putLong(v).array(), "v".getBytes());
        }
        p("int64 rnum", l.rnum(), l.ecode());
        BDBCUR cur = new BDBCUR(l);
        List<Long> longs = new ArrayList<>();
        if (cur.first()) {
            do {
                longs.add(java.nio.ByteBuffer.wrap(cur.key()).order(java.nio.ByteOrder.nativeOrder()).getLong());
            } while (cur.next());
        }
        p("int64 order", longs, l.ecode());
        l.close();
    }

    static List<String> keys(BDB b) {
        List<String> out = new ArrayList<>();
        BDBCUR c = new BDBCUR(b);
        if (c.first()) {
            do {
                out.add(c.key2());
            } while (c.next());
        }
        return out;
    }

    static void errors() {
        BDB b = new BDB();
        p("errmsg 22", BDB.errmsg(22), 0);
        p("errmsg 9999", BDB.errmsg(9999), 0);
        p("errmsg 12345", BDB.errmsg(12345), 0);
        p("get not open", b.get("k"), b.ecode());
        p("rnum not open", b.rnum(), b.ecode());
        p("path not open", b.path(), b.ecode());
        p("close not open", b.close(), b.ecode());
        p("setcmpfunc bad", b.setcmpfunc(17), b.ecode());
        p("tune before open", b.tune(0, 0, 0, -1, -1, 0), b.ecode());
        p("setcache before open", b.setcache(0, 0), b.ecode());
        p("open missing reader", b.open(dir + File.separator + "missing.tcb", BDB.OREADER), b.ecode());
        p("open writer", b.open(dir + File.separator + "errors.tcb", BDB.OWRITER | BDB.OCREAT), b.ecode());
        p("open again", b.open(dir + File.separator + "errors.tcb", BDB.OWRITER | BDB.OCREAT), b.ecode());
        p("setcache after open", b.setcache(10, 10), b.ecode());
        p("setxmsiz after open", b.setxmsiz(1 << 20), b.ecode());
        p("tune after open", b.tune(0, 0, 0, -1, -1, 0), b.ecode());
        p("setcmpfunc after open", b.setcmpfunc(BDB.CMPDECIMAL), b.ecode());
        p("setdfunit after open", b.setdfunit(1), b.ecode());
        p("get missing", b.get("missing"), b.ecode());
        p("ecode kept after success", b.put("a", "b") + " " + b.ecode(), 0);
        try {
            b.put((byte[]) null, "v".getBytes());
            p("put null", "no exception", b.ecode());
        } catch (IllegalArgumentException e) {
            p("put null", "IllegalArgumentException " + e.getMessage(), b.ecode());
        }
        try {
            b.range("a", true, null, true, -1);
            p("range String null", "no exception", b.ecode());
        } catch (NullPointerException e) {
            p("range String null", "NullPointerException", b.ecode());
        }
        p("close", b.close(), b.ecode());
        p("close twice", b.close(), b.ecode());
    }

    static void hash() {
        HDB h = new HDB();
        p("hdb open", h.open(dir + File.separator + "hash.tch", HDB.OWRITER | HDB.OCREAT | HDB.OTRUNC), h.ecode());
        p("hdb iterinit empty", h.iterinit(), h.ecode());
        p("hdb iternext empty", h.iternext(), h.ecode());
        p("hdb put", h.put("k", "v"), h.ecode());
        p("hdb put again", h.put("k", "w"), h.ecode());
        p("hdb putkeep", h.putkeep("k", "x"), h.ecode());
        p("hdb putcat", h.putcat("k", "z"), h.ecode());
        p("hdb putasync", h.putasync("a", "1"), h.ecode());
        p("hdb get", h.get("k"), h.ecode());
        p("hdb vsiz", h.vsiz("k"), h.ecode());
        p("hdb rnum", h.rnum(), h.ecode());
        p("hdb addint", h.addint("n", 3), h.ecode());
        p("hdb adddouble", h.adddouble("d", 2.5), h.ecode());
        p("hdb fwmkeys", h.fwmkeys("", -1).size(), h.ecode());
        p("hdb out", h.out("a"), h.ecode());
        p("hdb out again", h.out("a"), h.ecode());
        p("hdb tranbegin", h.tranbegin(), h.ecode());
        h.put("t", "t");
        p("hdb tranabort", h.tranabort(), h.ecode());
        p("hdb get t", h.get("t"), h.ecode());
        p("hdb vanish", h.vanish(), h.ecode());
        p("hdb rnum vanished", h.rnum(), h.ecode());
        p("hdb close", h.close(), h.ecode());
        BDB b = new BDB();
        p("bdb opens hdb file", b.open(dir + File.separator + "hash.tch", BDB.OREADER), b.ecode());
    }

    static void util() {
        p("itoa", Util.itoa(1, 8, '0'), 0);
        p("atoi", Util.atoi(" -12ab"), 0);
        p("atol", Util.atol("123456789012"), 0);
        p("packint", Util.packint(258), 0);
        p("unpackint", Util.unpackint(Util.packint(-5)), 0);
        p("packdouble", Util.unpackdouble(Util.packdouble(1.25)), 0);
        p("otos", Util.otos("h\u00e9".getBytes(java.nio.charset.StandardCharsets.UTF_8)), 0);
        p("serialize", Util.deserialize(Util.serialize("x")), 0);
        p("deserialize garbage", Util.deserialize(new byte[] {1, 2, 3}), 0);
    }
}

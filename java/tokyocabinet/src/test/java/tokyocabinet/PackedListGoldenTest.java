package tokyocabinet;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.util.List;
import org.junit.Test;
import org.rockcask.GoldenVectors;
import org.rockcask.GoldenVectors.Fields;
import org.rockcask.GoldenVectors.Vector;
import tokyocabinet.internal.PackedPutdups;

/**
 * The drop-in reads and writes the list layout as rust/jni/src/wire/ defines it: each golden
 * list (written from the Rust code) reads with {@link CasketNative#unpack} as the values written
 * beside it, and a list of pairs written by {@link PackedPutdups} (how gathered {@code putdup}s
 * cross) has the same bytes.
 */
public class PackedListGoldenTest {
    @Test
    public void everyListReadsAsItsItemsAndPairsAreWrittenAsItsBytes() throws IOException {
        int written = 0;
        for (Vector v : GoldenVectors.of("list")) {
            List<byte[]> items = CasketNative.unpack(v.bytes);
            Fields f = new Fields();
            items.forEach(item -> f.bytes("item", item));
            assertEquals(v.toString(), v.values, f.toString());
            if (items.contains(null) || items.size() % 2 != 0) {
                continue;
            }
            PackedPutdups pairs = new PackedPutdups();
            for (int i = 0; i < items.size(); i += 2) {
                pairs.add(items.get(i), items.get(i + 1));
            }
            assertArrayEquals(v.toString(), v.bytes, pairs.take());
            written++;
        }
        assertEquals("lists of pairs written", true, written >= 2);
    }
}

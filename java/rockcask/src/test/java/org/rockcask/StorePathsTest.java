package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Paths cross to the native side as the UTF-8 bytes of their strings ({@link Wire#path}): a
 * store, a snapshot and a checkpoint land where Java's {@link Path} says, characters beyond
 * U+FFFF included (which JNI's modified UTF-8 would spell otherwise).
 */
public class StorePathsTest {
    private static final String NAME = "caf\u00e9-\u6f22-\ud83d\ude00";

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    @Test
    public void aStoreItsSnapshotAndItsCheckpointAreWhereJavaSaysWhateverTheCharacters() throws IOException {
        // Java's own file names follow the platform's encoding; this is about UTF-8 platforms.
        Assume.assumeTrue(StandardCharsets.UTF_8.name().equals(System.getProperty("sun.jnu.encoding")));
        Path root = tmp.getRoot().toPath();
        Path dir = root.resolve(NAME);
        try (Store store = Store.open(dir, StoreOptions.defaults().syncOnCommit(false))) {
            try (Transaction tx = store.begin()) {
                tx.enqueue("q", new byte[] {1});
                tx.commit();
            }
            store.exportTo(root.resolve(NAME + ".rcs"), ExportOptions.defaults());
            store.checkpoint(root.resolve(NAME + "-checkpoint"));
        }
        Store.importFrom(root.resolve(NAME + ".rcs"), root.resolve(NAME + "-import"), ImportOptions.defaults());
        try (Stream<Path> listed = Files.list(root)) {
            assertEquals(Stream.of(NAME, NAME + ".rcs", NAME + "-checkpoint", NAME + "-import").sorted().collect(Collectors.toList()),
                    listed.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList()));
        }
        for (String copy : new String[] {NAME + "-checkpoint", NAME + "-import"}) {
            try (Store store = Store.open(root.resolve(copy), StoreOptions.defaults())) {
                assertEquals(copy, 1, store.queueSize("q"));
            }
        }
        assertTrue(Files.isDirectory(dir));
    }
}

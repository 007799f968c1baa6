package org.rockcask.bench.graph;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The disk a directory takes, as {@code du} counts it: blocks allocated, so a sparse file counts what it really holds. */
final class DiskUsage {
    private DiskUsage() {}

    static long allocatedBytes(Path dir) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("du", "-sk", dir.toString()).redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(out);
        }
        String text = out.toString(StandardCharsets.UTF_8.name());
        if (p.waitFor() != 0) {
            throw new IOException("du -sk " + dir + " failed: " + text);
        }
        return Long.parseLong(text.trim().split("\\s+")[0]) << 10;
    }
}

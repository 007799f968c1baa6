package org.rockcask.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This machine's disk limits in the benchmark's own directory, measured with dd in the same run
 * as the benchmark: synced 4 KiB writes per second (the fsync floor of a commit) and sequential
 * write bandwidth (1 GiB ended by fdatasync).
 */
public final class DiskLimits {
    final double syncedWritesPerSecond;
    final double sequentialMBPerSecond;

    private DiskLimits(double syncedWritesPerSecond, double sequentialMBPerSecond) {
        this.syncedWritesPerSecond = syncedWritesPerSecond;
        this.sequentialMBPerSecond = sequentialMBPerSecond;
    }

    public static DiskLimits measure(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path f = Files.createTempFile(dir, ".disk-limits", "");
        try {
            double synced = 2000 / seconds("dd", "if=/dev/zero", "of=" + f, "bs=4k", "count=2000", "oflag=dsync");
            double seq = 1073.741824 / seconds("dd", "if=/dev/zero", "of=" + f, "bs=1M", "count=1024", "conv=fdatasync");
            return new DiskLimits(synced, seq);
        } finally {
            Files.deleteIfExists(f);
        }
    }

    private static double seconds(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (InputStream in = p.getInputStream()) {
            in.transferTo(out);
        }
        if (p.waitFor() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed: " + out.toString(StandardCharsets.UTF_8.name()));
        }
        // "... copied, 1.2345 s, 870 MB/s"
        Matcher m = Pattern.compile("copied, ([0-9.]+) s").matcher(out.toString(StandardCharsets.UTF_8.name()));
        if (!m.find()) {
            throw new IOException("unexpected dd output: " + out);
        }
        return Double.parseDouble(m.group(1));
    }

    @Override
    public String toString() {
        return String.format("disk (dd, same run): synced_4k_writes_per_s %.0f, seq_write_MB_per_s %.0f", syncedWritesPerSecond, sequentialMBPerSecond);
    }
}

package org.rockcask.bench.graph;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;

/** This process's resident memory, from /proc/self/status: now (VmRSS) and at its peak (VmHWM), in bytes. */
final class ProcessMemory {
    final long residentBytes;
    final long peakResidentBytes;

    private ProcessMemory(long residentBytes, long peakResidentBytes) {
        this.residentBytes = residentBytes;
        this.peakResidentBytes = peakResidentBytes;
    }

    static ProcessMemory read() throws IOException {
        long rss = -1;
        long hwm = -1;
        for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
            if (line.startsWith("VmRSS:")) {
                rss = kibibytes(line);
            } else if (line.startsWith("VmHWM:")) {
                hwm = kibibytes(line);
            }
        }
        if (rss < 0 || hwm < 0) {
            throw new IOException("/proc/self/status has no VmRSS or VmHWM line");
        }
        return new ProcessMemory(rss << 10, hwm << 10);
    }

    /** "VmRSS:	  123456 kB" */
    private static long kibibytes(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }
}

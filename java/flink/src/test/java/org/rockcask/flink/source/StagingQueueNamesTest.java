package org.rockcask.flink.source;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.Test;

public class StagingQueueNamesTest {
    /** The vectors RockCask's core and tools are checked against (the test runs in java/flink). */
    private static final Path GOLDEN = Paths.get("../../tests/golden/staging-queue-names.tsv");

    @Test
    public void recognizesExactlyTheStagingQueueNamesOfTheGoldenVectors() throws Exception {
        List<String> lines = Files.readAllLines(GOLDEN, StandardCharsets.UTF_8);
        int checked = 0;
        for (String line : lines) {
            if (line.startsWith("#") || line.isEmpty()) {
                continue;
            }
            String[] columns = line.split("\t");
            boolean staging = !columns[1].equals("invalid");
            assertEquals(columns[0], staging, StagingQueueNames.isStagingQueue(columns[0]));
            checked++;
        }
        assertTrue("only " + checked + " vectors in " + GOLDEN.toAbsolutePath(), checked >= 10);
    }
}

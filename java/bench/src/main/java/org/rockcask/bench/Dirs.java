package org.rockcask.bench;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/** The benchmarks' store directories, under the system property {@code rockcask.bench.dir}. */
public final class Dirs {
    private Dirs() {}

    public static Path benchRoot() throws IOException {
        Path root = Paths.get(System.getProperty("rockcask.bench.dir", "build/bench-stores")).toAbsolutePath();
        Files.createDirectories(root);
        return root;
    }

    public static void delete(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        Files.walkFileTree(p, new SimpleFileVisitor<Path>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException exc) throws IOException {
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    public static long size(Path p) throws IOException {
        try (java.util.stream.Stream<Path> s = Files.walk(p)) {
            return s.filter(Files::isRegularFile).mapToLong(f -> f.toFile().length()).sum();
        }
    }
}

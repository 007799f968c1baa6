package org.rockcask;

import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

/**
 * The golden vectors of the packed layouts crossing JNI (tests/golden/packed-layouts.tsv, written
 * by rust/jni/src/wire/golden.rs from the Rust code), and the rendering of values both languages
 * share: {@code name=value} fields separated by spaces; a number; an id; {@code null} for absent;
 * or {@code "bytes"} with each byte outside {@code [A-Za-z0-9._-]} written {@code %XX}, text as
 * its UTF-8 bytes.
 */
public final class GoldenVectors {
    private GoldenVectors() {}

    /** One vector: its layout, its case, its values rendered, and its bytes. */
    public static final class Vector {
        public final String layout;
        public final String name;
        public final String values;
        public final byte[] bytes;

        Vector(String layout, String name, String values, byte[] bytes) {
            this.layout = layout;
            this.name = name;
            this.values = values;
            this.bytes = bytes;
        }

        @Override
        public String toString() {
            return layout + " " + name;
        }
    }

    /** Every vector of the file, in order. */
    public static List<Vector> all() throws IOException {
        Path file = Paths.get(System.getProperty("rockcask.test.goldenDir"), "packed-layouts.tsv");
        List<Vector> vectors = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] cols = line.split("\t", -1);
            assertTrue(line, cols.length == 4);
            vectors.add(new Vector(cols[0], cols[1], cols[2], hex(cols[3])));
        }
        assertTrue("the vectors were read", vectors.size() >= 10);
        return vectors;
    }

    /** The vectors of one layout. */
    public static List<Vector> of(String layout) throws IOException {
        List<Vector> vectors = new ArrayList<>();
        for (Vector v : all()) {
            if (v.layout.equals(layout)) {
                vectors.add(v);
            }
        }
        assertTrue("no vectors of " + layout, !vectors.isEmpty());
        return vectors;
    }

    private static byte[] hex(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    /** Values rendered as the Rust side renders them. */
    public static final class Fields {
        private final StringBuilder text = new StringBuilder();

        public Fields field(String name, Object value) {
            if (text.length() > 0) {
                text.append(' ');
            }
            text.append(name).append('=').append(value);
            return this;
        }

        public Fields bytes(String name, byte[] bytes) {
            if (bytes == null) {
                return field(name, "null");
            }
            StringBuilder q = new StringBuilder("\"");
            for (byte b : bytes) {
                char c = (char) (b & 0xff);
                if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-') {
                    q.append(c);
                } else {
                    q.append('%').append(String.format("%02X", b & 0xff));
                }
            }
            return field(name, q.append('"'));
        }

        public Fields text(String name, String text) {
            return bytes(name, text == null ? null : text.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}

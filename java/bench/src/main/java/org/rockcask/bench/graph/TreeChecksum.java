package org.rockcask.bench.graph;

/**
 * What a shortest-path tree comes to: how many vertices it reached, the sum of their distances
 * from the start, and a hash of every (vertex, distance) pair, independent of the order in which
 * the vertices were settled. Two trees with equal checksums reached the same vertices at the same
 * distances, whatever store they were read from.
 */
public final class TreeChecksum {
    final long reached;
    final long distanceSum;
    final long hash;

    TreeChecksum(long reached, long distanceSum, long hash) {
        this.reached = reached;
        this.distanceSum = distanceSum;
        this.hash = hash;
    }

    static long pairHash(int vertexId, long distance) {
        return SeededRandom.mix(((long) vertexId << 40) ^ distance ^ 0x5DEECE66DL);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TreeChecksum && ((TreeChecksum) o).reached == reached && ((TreeChecksum) o).distanceSum == distanceSum
                && ((TreeChecksum) o).hash == hash;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(hash);
    }

    /** "reached/sum/hash", as the result lines carry it. */
    @Override
    public String toString() {
        return reached + "/" + distanceSum + "/" + Long.toHexString(hash);
    }

    static TreeChecksum parse(String s) {
        String[] parts = s.split("/");
        if (parts.length != 3) {
            throw new IllegalArgumentException("not a tree checksum (reached/sum/hash): " + s);
        }
        return new TreeChecksum(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseUnsignedLong(parts[2], 16));
    }
}

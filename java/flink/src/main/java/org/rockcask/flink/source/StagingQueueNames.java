package org.rockcask.flink.source;

/**
 * Recognizes the queues a RockCask sink stages records in,
 * {@code <target>.staging/<lineage>/<subtask>/<epoch>}, exactly as RockCask's tools parse them
 * (the last {@code .staging/} ends the target; decimal numbers without sign or leading zero, the
 * subtask an unsigned 32-bit and the epoch an unsigned 64-bit number). Their entries belong to
 * checkpoints not committed yet: a source must never read them.
 */
final class StagingQueueNames {
    private static final String INFIX = ".staging/";

    private StagingQueueNames() {}

    static boolean isStagingQueue(String name) {
        int at = name.lastIndexOf(INFIX);
        if (at <= 0) {
            return false;
        }
        String[] parts = name.substring(at + INFIX.length()).split("/", -1);
        return parts.length == 3 && !parts[0].isEmpty() && canonicalUnsigned(parts[1], 0xFFFF_FFFFL) && canonicalUnsigned(parts[2], -1L);
    }

    /** A decimal number without sign or leading zero, at most {@code max} read as unsigned. */
    private static boolean canonicalUnsigned(String s, long max) {
        if (s.isEmpty() || (s.length() > 1 && s.charAt(0) == '0') || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            return false;
        }
        try {
            return Long.compareUnsigned(Long.parseUnsignedLong(s), max) <= 0;
        } catch (NumberFormatException tooLarge) {
            return false;
        }
    }
}

package org.rockcask.flink.internal;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.flink.annotation.Internal;
import org.rockcask.Store;

/**
 * Names of the queues a sink stages records in until their checkpoint commits:
 * {@code <target>.staging/<lineage>/<subtask>/<epoch>}, decimal numbers without padding. Tools
 * parse these names too, so the layout is fixed. The sink writes them and the source skips them
 * (a queue prefix never selects one), hence their place here rather than in the sink's package.
 */
@Internal
public final class StagingQueues {
    /** What follows the target's name in every staging queue's name. */
    public static final String INFIX = ".staging/";
    /** The longest name suffix a staging queue adds to its target's name (32-hex lineage, int subtask, long epoch). */
    public static final int MAX_SUFFIX_BYTES = INFIX.length() + 32 + 1 + 10 + 1 + 19;

    private StagingQueues() {}

    public static String name(String target, String lineage, int subtask, long epoch) {
        return subtaskPrefix(target, lineage, subtask) + epoch;
    }

    /** The prefix of every staging queue of {@code lineage} for {@code target}. */
    public static String lineagePrefix(String target, String lineage) {
        return target + INFIX + lineage + "/";
    }

    /** The prefix of the staging queues of one subtask of {@code lineage}. */
    public static String subtaskPrefix(String target, String lineage, int subtask) {
        return lineagePrefix(target, lineage) + subtask + "/";
    }

    /** Whether every staging queue of {@code target} has a name RockCask accepts. */
    public static boolean fits(String target) {
        return target.getBytes(StandardCharsets.UTF_8).length + MAX_SUFFIX_BYTES <= Store.MAX_QUEUE_NAME_BYTES;
    }

    /**
     * The parts of {@code queue}'s name, or empty for a name without the staging layout (then it
     * is not a sink's to touch): a non-empty target and lineage, and decimal numbers without
     * sign or leading zero that fit a subtask index and a checkpoint id. The command-line tool
     * parses them the same way (both check tests/golden/staging-queue-names.tsv).
     */
    public static Optional<Slot> parse(String queue) {
        int at = queue.lastIndexOf(INFIX);
        if (at <= 0) {
            return Optional.empty();
        }
        String[] parts = queue.substring(at + INFIX.length()).split("/", -1);
        if (parts.length != 3 || parts[0].isEmpty()) {
            return Optional.empty();
        }
        long subtask = canonicalNumber(parts[1], Integer.MAX_VALUE);
        long epoch = canonicalNumber(parts[2], Long.MAX_VALUE);
        if (subtask < 0 || epoch < 0) {
            return Optional.empty();
        }
        return Optional.of(new Slot(queue.substring(0, at), parts[0], (int) subtask, epoch));
    }

    /** The number {@code s} spells without sign or leading zero, if at most {@code max}; -1 otherwise. */
    private static long canonicalNumber(String s, long max) {
        boolean canonical = !s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9') && (s.equals("0") || s.charAt(0) != '0');
        if (!canonical) {
            return -1;
        }
        try {
            long n = Long.parseLong(s);
            return n <= max ? n : -1;
        } catch (NumberFormatException tooLarge) {
            return -1;
        }
    }

    /** Where a staging queue belongs: its target, lineage, writer subtask and the epoch its records were meant for. */
    @Internal
    public static final class Slot {
        public final String target;
        public final String lineage;
        public final int subtask;
        public final long epoch;

        Slot(String target, String lineage, int subtask, long epoch) {
            this.target = target;
            this.lineage = lineage;
            this.subtask = subtask;
            this.epoch = epoch;
        }
    }
}

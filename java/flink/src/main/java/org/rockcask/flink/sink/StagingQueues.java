package org.rockcask.flink.sink;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Names of the queues a sink stages records in until their checkpoint commits:
 * {@code <target>.staging/<lineage>/<subtask>/<epoch>}, decimal numbers without padding. Tools
 * parse these names too, so the layout is fixed.
 */
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

    /** RockCask's limit on the length of a queue name, in UTF-8 bytes. */
    public static final int MAX_QUEUE_NAME_BYTES = 1024;

    /** Whether every staging queue of {@code target} has a name RockCask accepts. */
    public static boolean fits(String target) {
        return target.getBytes(StandardCharsets.UTF_8).length + MAX_SUFFIX_BYTES <= MAX_QUEUE_NAME_BYTES;
    }

    /**
     * The subtask and epoch of {@code queue}, a name under {@link #lineagePrefix}; empty for a
     * name that does not have the staging layout (then it is not this sink's to touch).
     */
    public static Optional<Slot> parse(String lineagePrefix, String queue) {
        if (!queue.startsWith(lineagePrefix)) {
            return Optional.empty();
        }
        String rest = queue.substring(lineagePrefix.length());
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash != rest.lastIndexOf('/')) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Slot(Integer.parseInt(rest.substring(0, slash)), Long.parseLong(rest.substring(slash + 1))));
        } catch (NumberFormatException notStaging) {
            return Optional.empty();
        }
    }

    /** Where a staging queue belongs: the writer subtask and the epoch its records were meant for. */
    public static final class Slot {
        public final int subtask;
        public final long epoch;

        Slot(int subtask, long epoch) {
            this.subtask = subtask;
            this.epoch = epoch;
        }
    }
}

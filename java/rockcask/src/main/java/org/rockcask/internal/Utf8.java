package org.rockcask.internal;

import java.nio.charset.StandardCharsets;

/**
 * How every string RockCask hands to its native library crosses: as its UTF-8 bytes, made here
 * and nowhere else (never as a JNI {@code String}, which crosses in modified UTF-8: another
 * spelling of U+0000 and of characters above U+FFFF, and decoded with replacement when
 * malformed). Two rules, one per kind of string:
 *
 * <ul>
 *   <li>{@link #name}: what names something (a queue, a map, a dead-letter queue, a name prefix,
 *       a map key given as a string, a store's or a casket's path, a comparator's class) must be
 *       valid UTF-16. A string holding an unpaired surrogate has no UTF-8 form; Java's encoder
 *       would write {@code '?'} for it, so a lone U+D800 and a lone U+DC00 would name the same
 *       thing (and so would {@code "?"}). It is refused, naming the argument and where the surrogate
 *       is. Valid surrogate pairs (characters above U+FFFF) are names like any other.</li>
 *   <li>{@link #text}: what only says something (a rollback's reason) is encoded as Java
 *       encodes any string to UTF-8 ({@code String.getBytes(UTF_8)}): an unpaired surrogate
 *       becomes {@code '?'}, as in the codec's strings. A call that reports a failure must not
 *       fail on the words it reports it with.</li>
 * </ul>
 *
 * <p>Not API (see the package).
 */
public final class Utf8 {
    private Utf8() {}

    /**
     * The UTF-8 bytes of a name.
     *
     * @param what the argument, for the messages ("queue name", "path")
     * @throws NullPointerException when {@code s} is null, naming {@code what}
     * @throws IllegalArgumentException when {@code s} holds an unpaired surrogate, naming
     *     {@code what}, the surrogate and its index
     */
    public static byte[] name(String s, String what) {
        if (s == null) {
            throw new NullPointerException(what);
        }
        int bad = unpairedSurrogate(s);
        if (bad >= 0) {
            throw new IllegalArgumentException(invalid(s, what, bad));
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * {@link #name} for callers that report a failure by a code instead of throwing (the Tokyo
     * Cabinet drop-in): null when {@code s} holds an unpaired surrogate, and then
     * {@link #invalid} says why.
     */
    public static byte[] nameOrNull(String s) {
        return unpairedSurrogate(s) >= 0 ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /** Why {@link #nameOrNull} gave null for {@code s}. */
    public static String invalid(String s, String what) {
        return invalid(s, what, unpairedSurrogate(s));
    }

    /** The UTF-8 bytes of a text; an unpaired surrogate becomes {@code '?'}. */
    public static byte[] text(String s, String what) {
        if (s == null) {
            throw new NullPointerException(what);
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The index of the first unpaired surrogate in {@code s}, or -1 when it has none. */
    static int unpairedSurrogate(String s) {
        int n = s.length();
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return i;
                }
            }
        }
        return -1;
    }

    /** The longest part of a refused string its message quotes, in chars. */
    private static final int QUOTED = 200;

    /**
     * What was refused, where, and why: the argument, the string quoted (its first
     * {@link #QUOTED} chars, unpaired surrogates written as Java escapes), the surrogate and its
     * index.
     */
    private static String invalid(String s, String what, int at) {
        StringBuilder quoted = new StringBuilder();
        int n = Math.min(s.length(), QUOTED);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            boolean paired = Character.isHighSurrogate(c) ? i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))
                    : Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
            if (Character.isSurrogate(c) && !paired) {
                quoted.append(String.format("\\u%04X", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return String.format("%s \"%s%s\" holds an unpaired surrogate (\\u%04X) at index %d of its %d chars: it is not valid UTF-16"
                + " and has no UTF-8 form", what, quoted, s.length() > n ? "..." : "", (int) s.charAt(at), at, s.length());
    }
}

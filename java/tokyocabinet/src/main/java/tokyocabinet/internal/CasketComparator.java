package tokyocabinet.internal;

/**
 * A {@code BDBCMP} as the native side calls it (through a method id it looks up once): the
 * drop-in's comparator adapter implements it.
 *
 * <p>Internal: public only so that the native calls of this package can name it; not API.
 */
public interface CasketComparator {
    /** Set above the comparator's result (its low 32 bits) when it called a database while comparing (checked by the library). */
    long CALLED_A_DATABASE = 1L << 32;

    /**
     * The comparator's result in the low 32 bits (not sign-extended), with {@link #CALLED_A_DATABASE}
     * set if it called a database of the drop-in while comparing. An exception it throws counts
     * the keys as equal.
     */
    long compareChecked(byte[] a, byte[] b);
}

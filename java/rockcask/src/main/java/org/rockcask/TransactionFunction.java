package org.rockcask;

/**
 * The work of one transaction, for {@link Store#inTransaction}: reads and writes through
 * {@code tx} and returns a result. It may run several times (once per attempt), so it must
 * not act outside the store (send, print, count) before the commit it is part of succeeded:
 * do that with the result, after {@code inTransaction} returned.
 *
 * @param <T> the result, returned by {@code inTransaction} after a successful commit
 */
@FunctionalInterface
public interface TransactionFunction<T> {
    /**
     * Does the work in {@code tx}. Leave committing to the caller; a function that commits or
     * rolls {@code tx} back itself ends the transaction as it chose, and its result is returned
     * as it is.
     */
    T apply(Transaction tx);
}

/**
 * RockCask's internals: the native library loader and the guard around native handles. Public
 * only so that RockCask's own packages and the {@code tokyocabinet} drop-in can use them; not
 * API (left out of the javadoc, free to change in any release).
 */
package org.rockcask.internal;

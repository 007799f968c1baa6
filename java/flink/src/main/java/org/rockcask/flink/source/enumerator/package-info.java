/**
 * The source's split enumerator, its checkpointed state, and the two events it exchanges with the
 * readers (a request to list the queues, a reader's answer). {@code @Internal}.
 */
package org.rockcask.flink.source.enumerator;

/**
 * The sink's commit side: the committable a writer hands over at each checkpoint, its
 * serializer, and the committer that moves a staging queue into its target. {@code @Internal}.
 */
package org.rockcask.flink.sink.internal;

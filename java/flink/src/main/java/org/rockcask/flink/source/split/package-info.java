/**
 * The source's split: one queue in the store of one host, with the sequence numbers a reader
 * claimed and had not committed when it was checkpointed, and its serializer. {@code @Internal}.
 */
package org.rockcask.flink.source.split;

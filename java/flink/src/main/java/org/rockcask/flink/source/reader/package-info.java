/**
 * The source's reader: the queues it selects, the transactions that hold its claims until their
 * checkpoint completes, and how it waits for data. {@code @Internal}.
 */
package org.rockcask.flink.source.reader;

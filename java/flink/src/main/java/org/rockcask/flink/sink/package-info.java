/**
 * The RockCask sink: {@link RockCaskSink}, built with {@link RockCaskSinkBuilder}. Its writer and
 * the writer's state serializer are package-private; what Flink must reach of the commit side
 * (committer, committable, its serializer) is in {@code sink.internal}, {@code @Internal}.
 */
package org.rockcask.flink.sink;

/**
 * The RockCask source: {@link RockCaskSource}, built with {@link RockCaskSourceBuilder}. What Flink
 * runs of it lives in {@code enumerator}, {@code reader} and {@code split}, all {@code @Internal}.
 */
package org.rockcask.flink.source;

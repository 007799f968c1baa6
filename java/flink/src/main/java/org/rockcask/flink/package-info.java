/**
 * What the RockCask source ({@code org.rockcask.flink.source}) and sink
 * ({@code org.rockcask.flink.sink}) share and users configure: {@link RockCaskStoreSpec}, where a
 * store lives and how it is opened, and {@link RockCaskStores}, the stores open in this JVM. This
 * package imports neither entry point's package.
 */
package org.rockcask.flink;

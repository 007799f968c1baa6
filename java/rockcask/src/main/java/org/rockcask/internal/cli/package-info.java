/**
 * The {@code rockcask} CLI run from the jar ({@code java -jar rockcask-<version>.jar}, the jar's
 * {@code Main-Class}): {@link org.rockcask.internal.cli.Main} hands the command line to the CLI's
 * code in the native library and exits with its code. Not API, not exported.
 */
package org.rockcask.internal.cli;

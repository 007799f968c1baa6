/**
 * RockCask's internals: the native library's loader ({@link org.rockcask.internal.NativeLibrary},
 * with {@link org.rockcask.internal.Platform}, which names the platform whose library it loads,
 * and {@link org.rockcask.internal.CpuFeatures}, which first checks that this CPU can run the
 * library), the guard around native handles ({@link org.rockcask.internal.NativeResource}) and
 * the callback through which the library reports a long call's progress
 * ({@link org.rockcask.internal.ProgressRelay}) and the one conversion of strings handed to the
 * library ({@link org.rockcask.internal.Utf8}); nothing else. The native calls sit beside the
 * classes that make them and the JMX beans beside the figures they show, so this package uses
 * no other package of RockCask's and the packages form no cycle ({@code PackageLayoutTest}).
 *
 * <p>Not API. Public only because the drop-in ({@code tokyocabinet}) loads the same library,
 * guards its handles and converts its paths the same way: the module {@code org.rockcask} exports this package to the
 * module {@code org.rockcask.tokyocabinet} alone, and the javadoc leaves it out. Free to change in
 * any release.
 */
package org.rockcask.internal;

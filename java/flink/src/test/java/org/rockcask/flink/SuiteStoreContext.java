package org.rockcask.flink;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.typeutils.ResultTypeQueryable;
import org.apache.flink.connector.testframe.external.ExternalContext;

/**
 * What the contexts of Flink's connector suites share: a fresh store per test case, held open
 * for the whole case while the suite's jobs come and go, and records that are strings.
 */
abstract class SuiteStoreContext implements ExternalContext, ResultTypeQueryable<String> {
    /** Where the suite's stores go: the build's own directory when run from Gradle. */
    static final String ROOT_PROPERTY = "rockcask.suite.dir";

    protected final RockCaskStoreSpec spec;
    protected final RockCaskStores.Lease lease;

    protected SuiteStoreContext(String directoryPrefix, String testName) {
        Path root = Paths.get(System.getProperty(ROOT_PROPERTY, System.getProperty("java.io.tmpdir")));
        try {
            Files.createDirectories(root);
            spec = RockCaskStoreSpec.at(Files.createTempDirectory(root, directoryPrefix).toString()).withSyncOnCommit(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a store directory under " + root + " for " + testName, e);
        }
        lease = RockCaskStores.acquire(spec);
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return Types.STRING;
    }

    @Override
    public List<URL> getConnectorJarPaths() {
        return Collections.emptyList();
    }

    @Override
    public void close() {
        lease.close();
    }
}

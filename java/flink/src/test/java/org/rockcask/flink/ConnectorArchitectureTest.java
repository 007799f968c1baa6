package org.rockcask.flink;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;
import org.junit.Test;

/**
 * What of the connector is API, read from its compiled classes (Flink's stability annotations are
 * kept in the class files only, out of reflection's sight): a public class is either
 * {@code @PublicEvolving} or {@code @Internal}, outside the API packages it is {@code @Internal},
 * and the connector's packages depend on one another without a cycle.
 */
public class ConnectorArchitectureTest {
    /** The packages a user imports; every other package of the connector is internal. */
    private static final Set<String> API_PACKAGES = Set.of("org.rockcask.flink", "org.rockcask.flink.source", "org.rockcask.flink.sink");

    private static final JavaClasses CONNECTOR = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.rockcask.flink");

    @Test
    public void theRulesReadTheConnectorsClassesAndNotItsTests() {
        for (String name : new String[] {"org.rockcask.flink.source.RockCaskSource", "org.rockcask.flink.source.reader.QueueSourceReader",
                "org.rockcask.flink.sink.RockCaskWriter", "org.rockcask.flink.RockCaskStores$Lease"}) {
            assertTrue(name + " was not read", CONNECTOR.contain(name));
        }
        assertFalse("the tests were read too", CONNECTOR.contain(ConnectorArchitectureTest.class));
    }

    @Test
    public void aClassIsReachableWhenItAndEveryClassAroundItArePublic() {
        assertTrue(reachable(CONNECTOR.get("org.rockcask.flink.RockCaskStores$Lease")));
        assertFalse(reachable(CONNECTOR.get("org.rockcask.flink.RockCaskStores$Shared")));
        assertFalse(reachable(CONNECTOR.get("org.rockcask.flink.sink.RockCaskWriter")));
        assertFalse(reachable(CONNECTOR.get("org.rockcask.flink.source.reader.QueueSourceReader$CountingCollector")));
    }

    @Test
    public void everyPublicClassIsMarkedEitherPublicEvolvingOrInternal() {
        List<String> unmarked = new ArrayList<>();
        for (JavaClass c : CONNECTOR) {
            boolean evolving = c.isAnnotatedWith(PublicEvolving.class);
            boolean internal = c.isAnnotatedWith(Internal.class);
            if (reachable(c) && evolving == internal) {
                unmarked.add(c.getName() + (evolving ? " (both)" : ""));
            }
        }
        assertTrue("public classes of the connector marked neither @PublicEvolving nor @Internal: " + unmarked, unmarked.isEmpty());
    }

    @Test
    public void everyPublicClassOutsideTheApiPackagesIsInternal() {
        List<String> exposed = new ArrayList<>();
        for (JavaClass c : CONNECTOR) {
            if (reachable(c) && !API_PACKAGES.contains(c.getPackageName()) && !c.isAnnotatedWith(Internal.class)) {
                exposed.add(c.getName());
            }
        }
        assertTrue("public classes in the connector's internal packages (all but " + API_PACKAGES + ") not marked @Internal: " + exposed,
                exposed.isEmpty());
    }

    @Test
    public void theConnectorsPackagesFormNoCycle() {
        SlicesRuleDefinition.slices().matching("org.rockcask.(**)").namingSlices("org.rockcask.$1").should().beFreeOfCycles()
                .check(CONNECTOR);
    }

    /** Whether code outside the connector can name {@code c}: public, and so is every class around it. */
    private static boolean reachable(JavaClass c) {
        if (!c.getModifiers().contains(JavaModifier.PUBLIC) || c.getSimpleName().equals("package-info")) {
            return false;
        }
        return c.getEnclosingClass().map(ConnectorArchitectureTest::reachable).orElse(true);
    }
}

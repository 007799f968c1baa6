package org.rockcask;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.testsupport.ModuleConsumer;

/**
 * The jar as an application that is itself a module uses it: the named module
 * {@code org.rockcask} on the module path, with the API and its JMX beans working there, and its
 * internals out of reach.
 */
public class ModulePathTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The jar this build publishes (the build passes its path). */
    private static String jar() {
        String jar = System.getProperty("rockcask.test.jar");
        assertNotNull("the build names the jar", jar);
        return jar;
    }

    @Test
    public void aModuleThatRequiresOrgRockcaskRunsAStoreAndReadsItsBeans() throws Exception {
        ModuleConsumer app = new ModuleConsumer(jar(), tmp.newFolder("app").toPath())
                .source("module-info.java", "module app { requires org.rockcask; requires java.management; }")
                .source("app/Main.java", String.join("\n",
                        "package app;",
                        "import java.lang.management.ManagementFactory;",
                        "import java.nio.file.Path;",
                        "import java.nio.file.Paths;",
                        "import javax.management.JMX;",
                        "import javax.management.ObjectName;",
                        "import org.rockcask.Store;",
                        "import org.rockcask.StoreOptions;",
                        "import org.rockcask.Transaction;",
                        "import org.rockcask.management.QueueMXBean;",
                        "import org.rockcask.management.StoreMXBean;",
                        "public class Main {",
                        "    public static void main(String[] args) throws Exception {",
                        "        Module rockcask = Store.class.getModule();",
                        "        System.out.println(rockcask.getName() + \" automatic=\" + rockcask.getDescriptor().isAutomatic()",
                        "                + \" internal exported=\" + rockcask.isExported(\"org.rockcask.internal\"));",
                        "        Path dir = Paths.get(args[0]).toAbsolutePath();",
                        "        try (Store store = Store.open(dir, StoreOptions.defaults())) {",
                        "            try (Transaction tx = store.begin()) {",
                        "                tx.enqueue(\"app.out\", new byte[] {1, 2, 3});",
                        "                tx.commit();",
                        "            }",
                        "            String path = ObjectName.quote(dir.toString());",
                        "            Object commits = ManagementFactory.getPlatformMBeanServer()",
                        "                    .getAttribute(new ObjectName(\"org.rockcask:type=Store,name=\" + path), \"Commits\");",
                        "            QueueMXBean queue = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(),",
                        "                    new ObjectName(\"org.rockcask:type=Queue,store=\" + path + \",name=\" + ObjectName.quote(\"app.out\")), QueueMXBean.class);",
                        "            StoreMXBean bean = JMX.newMXBeanProxy(ManagementFactory.getPlatformMBeanServer(),",
                        "                    new ObjectName(\"org.rockcask:type=Store,name=\" + path), StoreMXBean.class);",
                        "            System.out.println(\"queues=\" + store.queues() + \" commits=\" + commits + \" depth=\" + queue.getDepth()",
                        "                    + \" queued=\" + bean.getQueuedItems());",
                        "        }",
                        "    }",
                        "}"));
        ModuleConsumer.Compiled compiled = app.compile();
        assertTrue(compiled.messages, compiled.ok);

        ModuleConsumer.Run run = app.run("app", "app.Main", tmp.getRoot().toPath().resolve("store").toString());
        assertEquals(run.toString(), 0, run.status);
        assertTrue(run.toString(), run.output.contains("org.rockcask automatic=false internal exported=false"));
        assertTrue(run.toString(), run.output.contains("queues=[app.out] commits=1 depth=1 queued=1"));
    }

    @Test
    public void aModuleCannotCompileAgainstTheInternals() throws Exception {
        ModuleConsumer app = new ModuleConsumer(jar(), tmp.newFolder("app").toPath())
                .source("module-info.java", "module app { requires org.rockcask; }")
                .source("app/Main.java", String.join("\n",
                        "package app;",
                        "public class Main {",
                        "    public static void main(String[] args) {",
                        "        System.out.println(org.rockcask.internal.NativeLibrary.javaVersion());",
                        "    }",
                        "}"));
        ModuleConsumer.Compiled compiled = app.compile();
        assertFalse("compiled against org.rockcask.internal: " + compiled.messages, compiled.ok);
        assertTrue(compiled.messages, compiled.messages.contains("org.rockcask.internal"));
        assertTrue(compiled.messages, compiled.messages.contains("does not export it to module app"));
    }
}

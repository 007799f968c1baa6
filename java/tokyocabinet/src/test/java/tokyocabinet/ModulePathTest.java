package tokyocabinet;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.rockcask.testsupport.ModuleConsumer;

/**
 * The drop-in as an application that is itself a module uses it: the named module
 * {@code org.rockcask.tokyocabinet} beside {@code org.rockcask} on the module path, reaching the
 * loader and the guard that {@code org.rockcask} exports to it alone, and exporting nothing but
 * {@code tokyocabinet}.
 */
public class ModulePathTest {
    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    /** The jars this build publishes, RockCask's and the drop-in's (the build passes their paths). */
    private static String jars() {
        String jars = System.getProperty("tokyocabinet.test.modulePath");
        assertNotNull("the build names the jars", jars);
        return jars;
    }

    @Test
    public void aModuleThatRequiresTheDropInOpensAndWritesADatabase() throws Exception {
        ModuleConsumer app = new ModuleConsumer(jars(), tmp.newFolder("app").toPath())
                .source("module-info.java", "module legacy { requires org.rockcask.tokyocabinet; }")
                .source("legacy/Main.java", String.join("\n",
                        "package legacy;",
                        "import tokyocabinet.BDB;",
                        "public class Main {",
                        "    public static void main(String[] args) {",
                        "        Module dropIn = BDB.class.getModule();",
                        "        System.out.println(dropIn.getName() + \" automatic=\" + dropIn.getDescriptor().isAutomatic()",
                        "                + \" internal exported=\" + dropIn.isExported(\"tokyocabinet.internal\"));",
                        "        BDB db = new BDB();",
                        "        if (!db.open(args[0], BDB.OWRITER | BDB.OCREAT)) {",
                        "            throw new IllegalStateException(\"open: \" + BDB.errmsg(db.ecode()));",
                        "        }",
                        "        db.put(\"key\", \"value\");",
                        "        System.out.println(\"get=\" + db.get(\"key\") + \" rnum=\" + db.rnum() + \" closed=\" + db.close());",
                        "        System.out.println(\"version=\" + tokyocabinet.Util.version());",
                        "    }",
                        "}"));
        ModuleConsumer.Compiled compiled = app.compile();
        assertTrue(compiled.messages, compiled.ok);

        ModuleConsumer.Run run = app.run("legacy", "legacy.Main", tmp.getRoot().toPath().resolve("casket.tcb").toString());
        assertEquals(run.toString(), 0, run.status);
        assertTrue(run.toString(), run.output.contains("org.rockcask.tokyocabinet automatic=false internal exported=false"));
        assertTrue(run.toString(), run.output.contains("get=value rnum=1 closed=true"));
        assertTrue(run.toString(), run.output.contains("version=RockCask " + System.getProperty("tokyocabinet.test.version")));
    }

    @Test
    public void aModuleThatRequiresTheDropInCannotCompileAgainstRockCasksInternals() throws Exception {
        ModuleConsumer app = new ModuleConsumer(jars(), tmp.newFolder("app").toPath())
                .source("module-info.java", "module legacy { requires org.rockcask.tokyocabinet; requires org.rockcask; }")
                .source("legacy/Main.java", String.join("\n",
                        "package legacy;",
                        "public class Main {",
                        "    public static void main(String[] args) {",
                        "        System.out.println(org.rockcask.internal.NativeLibrary.javaVersion());",
                        "    }",
                        "}"));
        ModuleConsumer.Compiled compiled = app.compile();
        assertFalse("compiled against org.rockcask.internal: " + compiled.messages, compiled.ok);
        assertTrue(compiled.messages, compiled.messages.contains("does not export it to module legacy"));
    }
}

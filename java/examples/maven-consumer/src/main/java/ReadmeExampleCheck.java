import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

/**
 * Runs README.md's example (ReadmeExample, its code as written there) on a new store, then opens
 * the store again and checks that it holds what the example wrote, and that RockCask ran as the
 * module the jar declares (named org.rockcask, not an automatic module, its internals not
 * exported to everyone): prints CHECK OK, or what differs and exits with status 1.
 */
public class ReadmeExampleCheck {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: ReadmeExampleCheck <directory to create the store in>");
            System.exit(2);
        }
        Path parent = Files.createDirectories(Paths.get(args[0]));
        Path storeDir = Files.createTempDirectory(parent, "readme-store-");
        ReadmeExample.main(new String[] {storeDir.toString()});

        List<String> problems = new ArrayList<>();
        Module rockcask = Store.class.getModule();
        expect(problems, "RockCask's module", "org.rockcask", rockcask.getName());
        if (rockcask.isNamed()) {
            expect(problems, "RockCask's module is automatic", false, rockcask.getDescriptor().isAutomatic());
            expect(problems, "org.rockcask.internal is exported to everyone", false, rockcask.isExported("org.rockcask.internal"));
        }
        try (Store store = Store.open(storeDir, StoreOptions.defaults()); Transaction tx = store.begin()) {
            expect(problems, "queues", Arrays.asList("count.in", "index.in", "parse.out"), store.queues());
            expect(problems, "parse.out payloads", new ArrayList<String>(), payloads(tx.peek("parse.out", 10)));
            expect(problems, "index.in payloads", Arrays.asList("hello"), payloads(tx.peek("index.in", 10)));
            expect(problems, "count.in payloads", Arrays.asList("hello"), payloads(tx.peek("count.in", 10)));
        }
        if (!problems.isEmpty()) {
            System.out.println("CHECK FAILED: the store at " + storeDir + " does not hold what the README example wrote:");
            problems.forEach(p -> System.out.println("  " + p));
            System.exit(1);
        }
        System.out.println("CHECK OK: read back from " + storeDir + " what the README example wrote");
    }

    private static List<String> payloads(List<Message> messages) {
        List<String> texts = new ArrayList<>();
        for (Message m : messages) {
            texts.add(new String(m.payload(), StandardCharsets.UTF_8));
        }
        return texts;
    }

    private static void expect(List<String> problems, String what, Object expected, Object actual) {
        if (!expected.equals(actual)) {
            problems.add(what + ": expected " + expected + ", found " + actual);
        }
    }
}

import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.List;
import java.util.UUID;
import org.rockcask.Message;
import org.rockcask.Store;
import org.rockcask.StoreOptions;
import org.rockcask.Transaction;

public class ReadmeExample {
    public static void main(String[] args) {
        try (Store store = Store.open(Paths.get(args[0]), StoreOptions.defaults())) {
            try (Transaction tx = store.begin()) {
                UUID id = tx.enqueue("parse.out", "hello".getBytes(StandardCharsets.UTF_8));
                tx.enqueue("index.in", id);                    // same object, second queue, no copy
                tx.commit();                                   // durable when it returns
            }
            try (Transaction tx = store.begin()) {
                List<Message> in = tx.poll("parse.out", 100);  // removed inside tx; rollback puts them back
                for (Message m : in) {
                    tx.enqueue("count.in", m.payload());
                }
                tx.commit();                                   // the move is atomic
            }
            System.out.println(store.queues() + " count.in=" + store.queueSize("count.in"));
        }
    }
}

/**
 * RockCask: transactional named queues, objects and maps in an embedded store, for the JVM.
 * The API is {@code org.rockcask}, the payload codec {@code org.rockcask.codec} and the JMX
 * interfaces {@code org.rockcask.management}. {@code org.rockcask.internal} (the native library's
 * loader and the guard around native handles) is not API: it is exported only to the Tokyo
 * Cabinet drop-in, which loads the same library and guards its handles the same way.
 */
@SuppressWarnings("module") // the drop-in is built after this module, so it is unknown here
module org.rockcask {
    // The JMX beans every store registers (StoreOptions.metrics(), on by default).
    requires java.management;

    exports org.rockcask;
    exports org.rockcask.codec;
    exports org.rockcask.management;
    exports org.rockcask.internal to org.rockcask.tokyocabinet;
}

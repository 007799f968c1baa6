/**
 * The drop-in for the Tokyo Cabinet Java binding: package {@code tokyocabinet}, with the
 * original's public signatures, on RockCask. Its other packages are not API. It uses RockCask's
 * native library loader and handle guard, which {@code org.rockcask} exports to this module
 * alone.
 */
module org.rockcask.tokyocabinet {
    requires org.rockcask;

    exports tokyocabinet;
}

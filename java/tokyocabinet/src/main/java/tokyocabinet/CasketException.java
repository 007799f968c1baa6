package tokyocabinet;

/**
 * A failed native call, carrying a Tokyo Cabinet error code and what failed (the message is
 * "code:detail"). Thrown by the native side and by this package's classes, and always caught
 * inside this package, where it becomes the value of {@code ecode()} and a failure return value.
 * No stack trace: it is control flow, not a bug.
 */
final class CasketException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int code;
    /** What failed and where (the message after the code). */
    final String detail;

    CasketException(int code, String detail) {
        super(code + ":" + detail, null, false, false);
        this.code = code;
        this.detail = detail;
    }
}

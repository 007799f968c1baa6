package tokyocabinet;

/**
 * A failed native call, carrying a Tokyo Cabinet error code. Thrown by the native side with the
 * message "code:detail" and always caught inside this package, where it becomes the value of
 * {@code ecode()} and a failure return value. No stack trace: it is control flow, not a bug.
 */
final class CasketException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    final int code;
    /** What failed and where (the message after the code). */
    final String detail;

    CasketException(String message) {
        super(message, null, false, false);
        int colon = message == null ? -1 : message.indexOf(':');
        int parsed;
        try {
            parsed = colon > 0 ? Integer.parseInt(message.substring(0, colon)) : BDB.EMISC;
        } catch (NumberFormatException e) {
            parsed = BDB.EMISC;
            colon = -1;
        }
        this.code = parsed;
        this.detail = message == null ? null : message.substring(colon + 1);
    }
}

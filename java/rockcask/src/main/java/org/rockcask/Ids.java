package org.rockcask;

import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * New object ids: UUIDv7 (RFC 9562), made in Java so that an enqueue needs no native call.
 * The 48-bit millisecond timestamp and 12-bit {@code rand_a} field form one counter that only
 * grows within this class loader (RFC 9562 method 3), so ids from one process sort in creation
 * order and land in key order in the store; {@code rand_b} carries 62 random bits.
 */
final class Ids {
    private static final AtomicLong LAST = new AtomicLong();

    private Ids() {}

    static UUID next() {
        long candidate = System.currentTimeMillis() << 12;
        long counter;
        for (;;) {
            long last = LAST.get();
            counter = Math.max(candidate, last + 1);
            if (LAST.compareAndSet(last, counter)) {
                break;
            }
        }
        long msb = ((counter >>> 12) << 16) | 0x7000L | (counter & 0xFFFL);
        long lsb = (ThreadLocalRandom.current().nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(msb, lsb);
    }
}

package org.rockcask.testsupport;

import java.security.Provider;
import java.security.SecureRandomSpi;
import java.util.SplittableRandom;

/**
 * A {@code SecureRandom} for test runs of a Windows JVM under Wine, installed first by
 * {@code tools/wine/security.properties} (tools/test-platforms.sh): the JDK's own ones seed
 * themselves from the network adapters' list, whose Windows call (iphlpapi's
 * {@code GetAnycastIpAddressTable}) Wine 8 lacks, so the first temporary file or random UUID
 * would end the JVM with a failed delay-load (0xc06d007f). Not for secrets: its seed is the
 * clocks and the process id, enough for unique temporary names in a test.
 */
public final class WineRandomProvider extends Provider {
    private static final long serialVersionUID = 1L;

    public WineRandomProvider() {
        super("RockCaskTestRandom", "1", "SecureRandom for tests under Wine, not for secrets");
        put("SecureRandom.TestRandom", Spi.class.getName());
    }

    /** The random numbers: a SplittableRandom seeded from the clocks and the process id. */
    public static final class Spi extends SecureRandomSpi {
        private static final long serialVersionUID = 1L;
        private SplittableRandom random = new SplittableRandom(
                System.nanoTime() ^ (System.currentTimeMillis() << 20) ^ (ProcessHandle.current().pid() << 40));

        @Override
        protected synchronized void engineSetSeed(byte[] seed) {
            long mixed = random.nextLong();
            for (byte b : seed) {
                mixed = mixed * 31 + b;
            }
            random = new SplittableRandom(mixed);
        }

        @Override
        protected synchronized void engineNextBytes(byte[] bytes) {
            random.nextBytes(bytes);
        }

        @Override
        protected byte[] engineGenerateSeed(int numBytes) {
            byte[] seed = new byte[numBytes];
            engineNextBytes(seed);
            return seed;
        }
    }
}

package org.rockcask.flink.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import org.apache.flink.annotation.Internal;

/**
 * The name of this machine, as the source and the sink record it next to a queue: a queue lives
 * in the store of one machine, and work naming it must run there.
 */
@Internal
public final class Hosts {
    private Hosts() {}

    /**
     * {@code InetAddress.getLocalHost().getHostName()}.
     *
     * @throws IllegalStateException when the machine cannot name itself (no work can then be
     *     placed safely)
     */
    public static String localHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("cannot resolve this machine's host name, which RockCask records with each queue", e);
        }
    }
}

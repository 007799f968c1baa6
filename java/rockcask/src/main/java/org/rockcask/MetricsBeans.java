package org.rockcask;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * The JMX beans of one open store (names in {@code org.rockcask.management}'s package doc): its
 * store bean and one bean per queue, kept in step with the store's queues by {@link #refresh},
 * which costs one native call when no queue appeared or went. Refreshed whenever one of its
 * beans is read and every second by {@link BeanRefresher}.
 */
final class MetricsBeans implements AutoCloseable {
    static final String DOMAIN = "org.rockcask";

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    private final StoreMetricsSource source;
    /** {@code ""}, or {@code ",instance=N"} for a second store open at the same path. */
    private final String instance;
    private final ObjectName storeName;
    private final Map<String, ObjectName> queueNames = new HashMap<>();
    /** The queue-set version the queue beans show; none read yet at first. */
    private long version = Long.MIN_VALUE;
    private boolean closed;

    private MetricsBeans(StoreMetricsSource source, String instance, ObjectName storeName) {
        this.source = source;
        this.instance = instance;
        this.storeName = storeName;
    }

    /** Registers the beans of {@code source}'s store; close the result when the store closes. */
    static MetricsBeans register(StoreMetricsSource source) {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (int n = 1;; n++) {
            String instance = n == 1 ? "" : ",instance=" + n;
            ObjectName name = name("type=Store,name=" + ObjectName.quote(source.storePath()) + instance);
            MetricsBeans beans = new MetricsBeans(source, instance, name);
            try {
                server.registerMBean(new StoreBean(beans), name);
            } catch (InstanceAlreadyExistsException taken) {
                continue;
            } catch (JMException e) {
                throw new IllegalStateException("registering the JMX bean " + name + ": " + e, e);
            }
            try {
                beans.refresh();
            } catch (RuntimeException e) {
                beans.close();
                throw e;
            }
            BeanRefresher.add(beans);
            return beans;
        }
    }

    private static ObjectName name(String properties) {
        try {
            return new ObjectName(DOMAIN + ":" + properties);
        } catch (JMException e) {
            throw new IllegalArgumentException("not a JMX name: " + properties, e);
        }
    }

    StoreMetricsSource source() {
        return source;
    }

    /**
     * Registers a bean for each queue that appeared and unregisters those of queues that went.
     * A store closed or collected meanwhile has its beans unregistered.
     */
    synchronized void refresh() {
        if (closed) {
            return;
        }
        if (source.isGone()) {
            close();
            return;
        }
        long now;
        List<String> names;
        try {
            now = source.queueSetVersion();
            if (now == version) {
                return;
            }
            names = source.queueNames();
        } catch (IllegalStateException closing) {
            close();
            return;
        }
        Set<String> listed = new HashSet<>(names);
        queueNames.entrySet().removeIf(e -> !listed.contains(e.getKey()) && unregister(e.getValue()));
        for (String queue : names) {
            if (!queueNames.containsKey(queue)) {
                ObjectName name = name("type=Queue,store=" + ObjectName.quote(source.storePath()) + ",name=" + ObjectName.quote(queue) + instance);
                try {
                    server.registerMBean(new QueueBean(this, queue), name);
                } catch (JMException e) {
                    throw new IllegalStateException("registering the JMX bean " + name + ": " + e, e);
                }
                queueNames.put(queue, name);
            }
        }
        version = now;
    }

    private boolean unregister(ObjectName name) {
        try {
            server.unregisterMBean(name);
        } catch (InstanceNotFoundException alreadyGone) {
            // Unregistered by someone else: gone either way.
        } catch (JMException e) {
            throw new IllegalStateException("unregistering the JMX bean " + name + ": " + e, e);
        }
        return true;
    }

    /** Unregisters every bean of the store. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        BeanRefresher.remove(this);
        try {
            queueNames.values().forEach(this::unregister);
            queueNames.clear();
        } finally {
            unregister(storeName);
        }
    }
}

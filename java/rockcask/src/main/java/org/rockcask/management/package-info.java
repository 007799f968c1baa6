/**
 * The JMX view of RockCask stores: MXBean interfaces, public because JMX requires it. Every open
 * store whose {@link org.rockcask.StoreOptions#metrics()} is on (the default) registers, in the
 * platform MBean server, under the domain {@code org.rockcask}:
 * <ul>
 *   <li>{@code org.rockcask:type=Store,name=<store path, ObjectName.quote'd>}, a {@link StoreMXBean};</li>
 *   <li>per queue, {@code org.rockcask:type=Queue,store=<store path, quoted>,name=<queue name, quoted>},
 *       a {@link QueueMXBean}.</li>
 * </ul>
 * A second store open at the same path at the same time (read-only opens beside a writer) adds
 * {@code instance=2}, {@code 3}, ... to its names. Queues appear at any commit: the set of queue
 * beans is brought up to date whenever any bean of the store is read, and every second by one
 * daemon thread shared by all stores, so a listing of {@code org.rockcask:type=Queue,*} shows a
 * new queue within a second. Closing the store unregisters all its beans.
 */
package org.rockcask.management;

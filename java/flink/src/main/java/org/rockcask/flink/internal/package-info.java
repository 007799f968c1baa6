/**
 * What the connector's source and sink share: the host name they record next to a queue, the
 * layout of the sink's staging queue names (which the source skips), and the framing of their
 * serialized state. Public only so that both sides can use it; {@code @Internal}, not API.
 */
package org.rockcask.flink.internal;

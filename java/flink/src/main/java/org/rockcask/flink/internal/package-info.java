/**
 * What the connector's source and sink share: the host name they record, and the framing of
 * their serialized state. Public only so that both packages can use it; not API.
 */
package org.rockcask.flink.internal;

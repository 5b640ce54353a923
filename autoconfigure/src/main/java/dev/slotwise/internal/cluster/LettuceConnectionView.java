package dev.slotwise.internal.cluster;

import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;

/**
 * What a {@link ConnectionPart} may ask of a Lettuce cluster connection.
 */
public interface LettuceConnectionView extends ConnectionView {

	/**
	 * Returns the native cluster connection: the shared one, or the connection's own when
	 * sharing is off (opened on first call).
	 * @return the native connection
	 */
	StatefulRedisClusterConnection<byte[], byte[]> nativeConnection();

	/**
	 * Asks for a partition refresh after a {@code MOVED} reply or a node failure seen by
	 * a call routed at {@code routedAt} (rate-limited; nothing when the client applied a
	 * topology change since).
	 * @param routedAt when the call was routed, from {@link System#nanoTime()}
	 */
	void invalidateTopology(long routedAt);

}

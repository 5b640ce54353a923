package dev.slotwise.internal.cluster;

/**
 * A feature of Slotwise's cluster connections, started for one connection factory: what
 * it adds to each connection the factory hands out.
 *
 * @param <V> what the feature sees of a connection
 */
@FunctionalInterface
public interface StartedFeature<V extends ConnectionView> {

	/**
	 * Returns what the feature adds to a new connection.
	 * @param connection the connection, not yet handed out
	 * @return the feature's part of the connection, {@link ConnectionPart#NONE} for
	 * nothing
	 */
	ConnectionPart connect(V connection);

}

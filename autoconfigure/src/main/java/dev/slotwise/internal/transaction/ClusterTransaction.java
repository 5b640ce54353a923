package dev.slotwise.internal.transaction;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The transaction state of one cluster connection: what its {@code multi()},
 * {@code exec()}, {@code discard()}, {@code watch()} and {@code unwatch()} do, and the
 * command groups it hands out while queueing. A transaction is bound to the slot of its
 * first key (of {@code watch} or of the first queued command) and runs on a connection of
 * its own to that slot's master, returned at {@code exec()}, {@code discard()} or
 * {@link #close()}. Not thread-safe, like the connection.
 */
public interface ClusterTransaction extends AutoCloseable {

	/**
	 * Starts queueing; does nothing when queueing already (as Spring Data Redis does).
	 * @throws org.springframework.dao.InvalidDataAccessApiUsageException while the
	 * connection pipelines
	 */
	void multi();

	/**
	 * Returns whether commands are being queued.
	 * @return whether {@link #multi()} was called and neither {@link #exec()} nor
	 * {@link #discard()} since
	 */
	boolean isQueueing();

	/**
	 * Returns commands of a Spring Data Redis command interface that queue each call in
	 * this transaction, valid while {@link #isQueueing()}.
	 * @param <T> the interface
	 * @param group the interface, e.g. {@code RedisStringCommands.class}
	 * @return the queueing commands
	 */
	<T> T commands(Class<T> group);

	/**
	 * Runs the queued commands.
	 * @return the results, converted as Spring Data Redis converts them in standalone
	 * mode; {@code null} or empty as Spring Data Redis returns them when a watched key
	 * changed
	 */
	@Nullable List<@Nullable Object> exec();

	/**
	 * Drops the queued commands and the watched keys.
	 */
	void discard();

	/**
	 * Watches keys, which must hash to one slot (and to the transaction's slot when it
	 * has one).
	 * @param keys the keys
	 */
	void watch(byte[]... keys);

	/**
	 * Forgets the watched keys.
	 */
	void unwatch();

	/**
	 * Ends whatever is open: queued commands are dropped (the server discards them when
	 * their connection closes).
	 */
	@Override
	void close();

}

package dev.slotwise.connection;

import java.nio.ByteBuffer;

import org.jspecify.annotations.Nullable;

/**
 * A near cache for the reactive cluster connections of a
 * {@link SlotwiseLettuceConnectionFactory}: {@code GET} and {@code MGET} of covered keys
 * are answered from memory where it can, and commands that name a covered key drop it
 * when they are sent and again when they complete. Buffers are read without moving their
 * position.
 */
public interface ReactiveNearCache {

	/**
	 * Tells whether reads of the key are cached.
	 * @param key the key
	 * @return whether the key is covered
	 */
	boolean covers(ByteBuffer key);

	/**
	 * Returns the value kept for a covered key, counting a hit or a miss.
	 * @param key the key
	 * @return the value, or {@code null} when it must be read from Redis
	 */
	@Nullable ByteBuffer lookup(ByteBuffer key);

	/**
	 * Returns the value kept for a covered key without counting it.
	 * @param key the key
	 * @return the value, or {@code null}
	 */
	@Nullable ByteBuffer peek(ByteBuffer key);

	/**
	 * Counts reads answered from memory or from Redis.
	 * @param hit whether from memory
	 * @param count how many keys
	 */
	void count(boolean hit, int count);

	/**
	 * Returns the ticket a read of the key takes before it is sent.
	 * @param key the key
	 * @return the ticket
	 */
	long ticket(ByteBuffer key);

	/**
	 * Keeps a read's reply if nothing touched its slot since the ticket was taken.
	 * @param key the key
	 * @param ticket the ticket
	 * @param value the reply, {@code null} for a missing key (not kept)
	 */
	void offer(ByteBuffer key, long ticket, @Nullable ByteBuffer value);

	/**
	 * Drops a key that is being or was written.
	 * @param key the key
	 */
	void written(ByteBuffer key);

}

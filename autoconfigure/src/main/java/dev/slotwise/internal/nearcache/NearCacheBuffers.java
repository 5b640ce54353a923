package dev.slotwise.internal.nearcache;

import java.nio.ByteBuffer;

import dev.slotwise.connection.ReactiveNearCache;
import org.jspecify.annotations.Nullable;

/**
 * The near cache as the reactive connections see it: their keys and values are buffers.
 * Every call that may send a read first makes sure tracking runs on the factory's client
 * (a reactive application may never open an imperative connection, which otherwise starts
 * it).
 */
public final class NearCacheBuffers implements ReactiveNearCache {

	private final NearCache cache;

	private final Runnable ensureTracking;

	/**
	 * Creates the view.
	 * @param cache the near cache
	 * @param ensureTracking makes sure tracking runs on the factory's current client
	 */
	public NearCacheBuffers(NearCache cache, Runnable ensureTracking) {
		this.cache = cache;
		this.ensureTracking = ensureTracking;
	}

	@Override
	public boolean covers(ByteBuffer key) {
		return this.cache.coversTemplateKey(bytes(key));
	}

	@Override
	public @Nullable ByteBuffer lookup(ByteBuffer key) {
		byte[] value = this.cache.lookup(bytes(key));
		return (value != null) ? ByteBuffer.wrap(value) : null;
	}

	@Override
	public @Nullable ByteBuffer peek(ByteBuffer key) {
		byte[] value = this.cache.peek(bytes(key));
		return (value != null) ? ByteBuffer.wrap(value) : null;
	}

	@Override
	public void count(boolean hit, int count) {
		this.cache.count(hit, count);
	}

	@Override
	public long ticket(ByteBuffer key) {
		this.ensureTracking.run();
		return this.cache.ticket(bytes(key));
	}

	@Override
	public void offer(ByteBuffer key, long ticket, @Nullable ByteBuffer value) {
		this.cache.offer(bytes(key), ticket, (value != null) ? bytes(value) : null);
	}

	@Override
	public void written(ByteBuffer key) {
		this.cache.written(bytes(key));
	}

	private static byte[] bytes(ByteBuffer buffer) {
		byte[] bytes = new byte[buffer.remaining()];
		buffer.duplicate().get(bytes);
		return bytes;
	}

}

package dev.slotwise.connection;

import java.nio.ByteBuffer;
import java.util.List;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ScanOptions;

/**
 * Runs the {@code SCAN} and {@code KEYS} calls of a
 * {@link SlotwiseLettuceConnectionFactory}'s reactive connections across the whole
 * cluster without blocking.
 *
 * @see SlotwiseLettuceConnectionFactory#setReactiveKeyspace(ReactiveKeyspace)
 */
public interface ReactiveKeyspace {

	/**
	 * Scans every master; honours back-pressure, and cancelling stops every node's walk.
	 * @param options match, count and type, passed to every node
	 * @return the keys, each at least once
	 */
	Flux<ByteBuffer> scan(ScanOptions options);

	/**
	 * Returns the keys matching a pattern on every master. Called on the caller's thread
	 * at the call (not when the result is subscribed), so that the implementation may
	 * look at who calls.
	 * @param pattern the pattern
	 * @return the keys
	 */
	Mono<List<ByteBuffer>> keys(ByteBuffer pattern);

}

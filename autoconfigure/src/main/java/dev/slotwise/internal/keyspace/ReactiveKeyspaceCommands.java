package dev.slotwise.internal.keyspace;

import java.nio.ByteBuffer;
import java.util.List;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ScanOptions;

/**
 * {@link KeyspaceCommands} that also run without blocking, for the reactive connections
 * over Lettuce.
 */
public interface ReactiveKeyspaceCommands extends KeyspaceCommands {

	/**
	 * Scans every master; honours back-pressure, and cancelling stops every node's walk.
	 * @param options match, count and type, passed to every node
	 * @return the keys, each at least once
	 */
	Flux<ByteBuffer> scanReactive(ScanOptions options);

	/**
	 * Returns the keys matching a pattern on every master.
	 * @param pattern the pattern
	 * @return the keys
	 */
	Mono<List<ByteBuffer>> keysReactive(ByteBuffer pattern);

}

package dev.slotwise.internal.pipeline;

import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import dev.slotwise.internal.compat.JedisNodePools;
import dev.slotwise.internal.compat.SpringDataInternals;
import dev.slotwise.internal.pool.StaleJedisConnections;
import dev.slotwise.internal.routing.Chunks;
import dev.slotwise.internal.routing.NodeAddress;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.AbstractPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisGeoCommands;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisHyperLogLogCommands;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisListCommands;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.RedisZSetCommands;
import org.springframework.data.redis.connection.jedis.JedisConnection;
import org.springframework.data.redis.connection.jedis.JedisExceptionConverter;

/**
 * Replays one node's commands on a connection borrowed from Jedis's pool of that node,
 * through a Spring Data Redis standalone {@link JedisConnection} in pipeline mode: Spring
 * Data Redis's own argument handling and result conversion, so the results have exactly
 * the types a standalone pipeline returns. One flush per {@code maxPerFlush} commands.
 * <p>
 * Spring Data Redis leaves a successful status command ({@code void} methods such as
 * {@code hMSet}, {@code rename}, {@code lSet}) out of the results and puts its exception
 * in when it fails, which would make positions ambiguous. A {@code PING} after each
 * status command marks where its entry would be: {@code PING} never fails, so an
 * exception before it is the status command's.
 */
final class NodeReplay {

	/** Outcome of a status command that succeeded: no entry in the pipeline's results. */
	static final Object NO_RESULT = new Object() {
		@Override
		public String toString() {
			return "(status)";
		}
	};

	private static final Object QUEUED = new Object();

	private static final JedisExceptionConverter EXCEPTIONS = new JedisExceptionConverter();

	private static final Map<Class<?>, Function<JedisConnection, Object>> GROUPS = Map.of(RedisStringCommands.class,
			JedisConnection::stringCommands, RedisHashCommands.class, JedisConnection::hashCommands,
			RedisListCommands.class, JedisConnection::listCommands, RedisSetCommands.class,
			JedisConnection::setCommands, RedisZSetCommands.class, JedisConnection::zSetCommands,
			RedisKeyCommands.class, JedisConnection::keyCommands, RedisHyperLogLogCommands.class,
			JedisConnection::hyperLogLogCommands, RedisGeoCommands.class, JedisConnection::geoCommands,
			RedisStreamCommands.class, JedisConnection::streamCommands);

	private NodeReplay() {
	}

	/**
	 * Returns whether commands of the interface can be replayed.
	 */
	static boolean supports(Class<?> group) {
		return GROUPS.containsKey(group);
	}

	/**
	 * Runs the commands on the node; when the borrowed connection fails before any reply
	 * was read (the node closed it while idle), once more on a fresh one
	 * ({@link StaleJedisConnections}).
	 * @return one outcome per attempt: the converted result, {@link #NO_RESULT}, or the
	 * command's exception
	 * @throws RuntimeException when the node cannot be reached or a read fails (the
	 * connection is then dropped)
	 */
	static @Nullable Object[] run(RedisClusterClient client, NodeAddress node, List<Attempt> attempts,
			int maxPerFlush) {
		ConnectionPool pool = pool(client, node, attempts.get(0).command().sampleKey());
		return StaleJedisConnections.send(pool, (attempt) -> runOnce(pool, attempts, maxPerFlush, attempt));
	}

	private static @Nullable Object[] runOnce(ConnectionPool pool, List<Attempt> attempts, int maxPerFlush,
			StaleJedisConnections.Attempt attempt) {
		@Nullable Object[] outcomes = new Object[attempts.size()];
		try (Connection connection = attempt.borrowed(pool.getResource())) {
			// A PING ahead of the first window, its reply read before the pipeline's: a
			// connection failure before it (a connection the node closed while idle)
			// allows a second attempt, one after it never does.
			connection.sendCommand(Protocol.Command.PING);
			// The standalone connection is only a converter over the borrowed socket:
			// never closed (see SpringDataInternals.pipelineOver).
			JedisConnection replay = SpringDataInternals.pipelineOver(connection);
			int offset = 0;
			for (List<Attempt> window : Chunks.of(attempts, maxPerFlush)) {
				flush(replay, window, outcomes, offset, (offset == 0) ? () -> attempt.read(connection) : () -> {
				});
				offset += window.size();
			}
		}
		return outcomes;
	}

	/**
	 * Queues a window on the pipeline and reads its results.
	 * @param beforeResults runs after the window is queued and before its results are
	 * read
	 */
	private static void flush(JedisConnection replay, List<Attempt> window, @Nullable Object[] outcomes, int offset,
			Runnable beforeResults) {
		replay.openPipeline();
		AbstractPipeline pipeline = replay.getPipeline();
		// Per attempt: a fast command's Response, QUEUED for a command Spring Data Redis
		// queued, or null when it refused the call (its outcome is then set already).
		Object[] sent = new Object[window.size()];
		for (int i = 0; i < window.size(); i++) {
			Attempt attempt = window.get(i);
			QueuedCommand command = attempt.command();
			if (attempt.asking()) {
				// Sent on the Jedis pipeline itself: its reply is read but never becomes
				// a Spring Data Redis result.
				pipeline.sendCommand(Protocol.Command.ASKING, new byte[0][]);
			}
			FastCommands.Fast fast = FastCommands.of(command.method(), command.args());
			if (fast != null) {
				sent[i] = fast.send().apply(pipeline, command.args());
				continue;
			}
			try {
				command.method().invoke(GROUPS.get(command.group()).apply(replay), command.args());
				sent[i] = QUEUED;
				if (command.isStatus()) {
					replay.execute("PING");
				}
			}
			catch (InvocationTargetException ex) {
				// Refused by Spring Data Redis before anything was sent (e.g. an argument
				// it rejects).
				outcomes[offset + i] = ex.getCause();
			}
			catch (IllegalAccessException ex) {
				throw new IllegalStateException(ex);
			}
		}
		beforeResults.run();
		List<@Nullable Object> results;
		try {
			// Also syncs the fast commands' responses: they share the Jedis pipeline.
			results = replay.closePipeline();
		}
		catch (RedisPipelineException ex) {
			results = ex.getPipelineResult();
		}
		int next = 0;
		for (int i = 0; i < window.size(); i++) {
			if (sent[i] == null) {
				continue;
			}
			if (sent[i] instanceof Response<?> response) {
				outcomes[offset + i] = fastOutcome(response,
						FastCommands.of(window.get(i).command().method(), window.get(i).command().args()));
			}
			else if (window.get(i).command().isStatus()) {
				Object entry = results.get(next);
				if (entry instanceof Exception) {
					outcomes[offset + i] = entry;
					next++;
				}
				else {
					outcomes[offset + i] = NO_RESULT;
				}
				next++; // the PING
			}
			else {
				outcomes[offset + i] = results.get(next++);
			}
		}
		if (next != results.size()) {
			throw new IllegalStateException("Pipelined commands and results do not match: " + results.size()
					+ " results for " + next + " expected; a command sent more than one");
		}
	}

	private static @Nullable Object fastOutcome(Response<?> response, FastCommands.@Nullable Fast fast) {
		try {
			Object reply = response.get();
			return (reply != null && fast != null) ? fast.convert().apply(reply) : reply;
		}
		catch (JedisDataException ex) {
			// As Spring Data Redis translates a failed pipelined command.
			DataAccessException translated = EXCEPTIONS.convert(ex);
			return (translated != null) ? translated : new RedisSystemException(ex.getMessage(), ex);
		}
	}

	private static ConnectionPool pool(RedisClusterClient client, NodeAddress node, byte[] key) {
		return JedisNodePools.forAddress(client, node, key);
	}

	/**
	 * One command for one node.
	 *
	 * @param command the command
	 * @param asking whether {@code ASKING} must precede it
	 */
	record Attempt(QueuedCommand command, boolean asking) {
	}

}

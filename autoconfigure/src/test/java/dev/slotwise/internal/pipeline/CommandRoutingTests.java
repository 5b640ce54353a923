package dev.slotwise.internal.pipeline;

import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;

import dev.slotwise.internal.routing.SlotHash;
import org.junit.jupiter.api.Test;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisListCommands;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.stream.MapRecord;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

import static dev.slotwise.internal.pipeline.PipelineTestSupport.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * How queued calls are routed or refused, without Redis.
 */
class CommandRoutingTests {

	@Test
	void singleKeyCommandRoutesByItsKey() throws Exception {
		QueuedCommand command = plan(RedisStringCommands.class, "set", new Object[] { bytes("a"), bytes("v") },
				byte[].class, byte[].class);
		assertThat(command.slot()).isEqualTo(SlotHash.slot(bytes("a")));
		assertThat(command.crossSlot()).isFalse();
	}

	@Test
	void valuesAreNotMistakenForKeys() throws Exception {
		QueuedCommand command = plan(RedisSetCommands.class, "sAdd",
				new Object[] { bytes("{x}set"), new byte[][] { bytes("m1"), bytes("m2") } }, byte[].class,
				byte[][].class);
		assertThat(command.crossSlot()).isFalse();
		assertThat(command.slot()).isEqualTo(SlotHash.slot(bytes("x")));
	}

	@Test
	void crossSlotEngineCommandsAreMarkedForTheEngine() throws Exception {
		QueuedCommand command = plan(RedisStringCommands.class, "mGet",
				new Object[] { new byte[][] { bytes("a"), bytes("b") } }, byte[][].class);
		assertThat(command.crossSlot()).isTrue();
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		tuples.put(bytes("a"), bytes("1"));
		tuples.put(bytes("b"), bytes("2"));
		assertThat(plan(RedisStringCommands.class, "mSet", new Object[] { tuples }, Map.class).crossSlot()).isTrue();
	}

	@Test
	void sameSlotMultiKeyCommandsRunOnTheirNode() throws Exception {
		assertThat(plan(RedisKeyCommands.class, "rename", new Object[] { bytes("{r}a"), bytes("{r}b") }, byte[].class,
				byte[].class)
			.crossSlot()).isFalse();
	}

	@Test
	void crossSlotMultiKeyCommandsOutsideTheEngineAreRefused() {
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
			.isThrownBy(() -> plan(RedisKeyCommands.class, "rename", new Object[] { bytes("a"), bytes("b") },
					byte[].class, byte[].class))
			.withMessage("RedisKeyCommands.rename cannot be pipelined on a Redis Cluster: its keys span hash slots "
					+ "(only mGet, mSet, del, unlink and exists may)");
	}

	@Test
	void blockingCommandsAreRefused() {
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
			.isThrownBy(() -> plan(RedisListCommands.class, "bLPop", new Object[] { 1, new byte[][] { bytes("l") } },
					int.class, byte[][].class))
			.withMessageStartingWith("RedisListCommands.bLPop cannot be pipelined on a Redis Cluster");
	}

	@Test
	void streamsRouteByTheRecordsStreamAndRefuseBlockingReads() throws Exception {
		MapRecord<byte[], byte[], byte[]> record = MapRecord.create(bytes("{s}stream"), Map.of(bytes("f"), bytes("v")));
		assertThat(plan(RedisStreamCommands.class, "xAdd", new Object[] { record }, MapRecord.class).slot())
			.isEqualTo(SlotHash.slot(bytes("s")));
		assertThatExceptionOfType(InvalidDataAccessApiUsageException.class)
			.isThrownBy(() -> plan(RedisStreamCommands.class, "xRead",
					new Object[] { StreamReadOptions.empty().block(java.time.Duration.ofSeconds(1)),
							new StreamOffset<?>[] { StreamOffset.fromStart(bytes("x")) } },
					StreamReadOptions.class, StreamOffset[].class))
			.withMessageContaining("it blocks");
	}

	@Test
	void nullKeysAreRejectedNamingTheCommand() {
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> plan(RedisStringCommands.class, "get", new Object[] { null }, byte[].class))
			.withMessage("A key of RedisStringCommands.get must not be null");
	}

	private static QueuedCommand plan(Class<?> group, String name, Object[] args, Class<?>... types)
			throws NoSuchMethodException {
		Method method = group.getMethod(name, types);
		return CommandRouting.plan(0, group, method, args);
	}

}

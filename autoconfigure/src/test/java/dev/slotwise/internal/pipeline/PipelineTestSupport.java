package dev.slotwise.internal.pipeline;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisTestCluster;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.geo.Point;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStringCommands.SetOption;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamRecords;
import org.springframework.data.redis.core.types.Expiration;

/**
 * Contexts and random command mixes for the pipeline tests.
 */
final class PipelineTestSupport {

	private PipelineTestSupport() {
	}

	static ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=2s");
	}

	static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * One command as a call on a connection.
	 *
	 * @param name for messages
	 * @param call the call
	 * @param isVoid whether the method returns nothing (Spring Data Redis leaves it out
	 * of pipeline results)
	 */
	record Op(String name, Function<RedisConnection, @Nullable Object> call, boolean isVoid) {

		@Override
		public String toString() {
			return this.name;
		}

	}

	/**
	 * Random commands over every command group on keys spread over all slots; every key
	 * prefix holds one type, so no command fails.
	 */
	static List<Op> randomOps(Random random, int count) {
		List<Op> ops = new ArrayList<>(count);
		for (int i = 0; i < count; i++) {
			ops.add(randomOp(random));
		}
		return ops;
	}

	private static Op randomOp(Random random) {
		int n = random.nextInt(300);
		byte[] s = bytes("s:" + n);
		byte[] c = bytes("c:" + n);
		byte[] h = bytes("h:" + n);
		byte[] l = bytes("l:" + n);
		byte[] set = bytes("set:" + n);
		byte[] z = bytes("z:" + n);
		byte[] hll = bytes("hll:" + n);
		byte[] geo = bytes("geo:" + n);
		byte[] x = bytes("x:" + n);
		String tag = "{t" + random.nextInt(40) + "}";
		byte[] value = bytes("v" + random.nextInt(1000));
		byte[] field = bytes("f" + random.nextInt(5));
		return switch (random.nextInt(42)) {
			case 0 -> op("set", (r) -> r.stringCommands().set(s, value));
			case 1, 2 -> op("get", (r) -> r.stringCommands().get(s));
			case 3 -> op("incr", (r) -> r.stringCommands().incr(c));
			case 4 -> op("incrBy", (r) -> r.stringCommands().incrBy(c, 5));
			case 5 -> op("append", (r) -> r.stringCommands().append(s, value));
			case 6 -> op("strLen", (r) -> r.stringCommands().strLen(s));
			case 7 -> op("setNX", (r) -> r.stringCommands().setNX(s, value));
			case 8 -> op("set EX NX",
					(r) -> r.stringCommands().set(s, value, Expiration.seconds(1000), SetOption.ifAbsent()));
			case 9 ->
				op("mGet cross-slot", (r) -> r.stringCommands().mGet(s, bytes("s:" + (n + 1)), bytes("s:" + (n + 7))));
			case 10 -> op("mGet same-slot", (r) -> r.stringCommands().mGet(bytes(tag + "s:1"), bytes(tag + "s:2")));
			case 11 -> {
				Map<byte[], byte[]> tuples = new LinkedHashMap<>();
				tuples.put(s, value);
				tuples.put(bytes("s:" + (n + 3)), value);
				yield op("mSet cross-slot", (r) -> r.stringCommands().mSet(tuples));
			}
			case 12 -> op("mSet same-slot", (r) -> r.stringCommands().mSet(Map.of(bytes(tag + "s:1"), value)));
			case 13 -> op("hSet", (r) -> r.hashCommands().hSet(h, field, value));
			case 14 -> op("hGet", (r) -> r.hashCommands().hGet(h, field));
			case 15 -> op("hGetAll", (r) -> r.hashCommands().hGetAll(h));
			case 16 -> op("hIncrBy", (r) -> r.hashCommands().hIncrBy(h, bytes("count"), 2));
			case 17 -> new Op("hMSet", (r) -> {
				r.hashCommands().hMSet(h, Map.of(field, value, bytes("g"), value));
				return null;
			}, true);
			case 18 -> op("hDel", (r) -> r.hashCommands().hDel(h, field));
			case 19 -> op("rPush", (r) -> r.listCommands().rPush(l, value, value));
			case 20 -> op("lRange", (r) -> r.listCommands().lRange(l, 0, -1));
			case 21 -> op("lPop", (r) -> r.listCommands().lPop(l));
			case 22 -> op("lLen", (r) -> r.listCommands().lLen(l));
			case 23 -> op("sAdd", (r) -> r.setCommands().sAdd(set, value, field));
			case 24 -> op("sMembers", (r) -> r.setCommands().sMembers(set));
			case 25 -> op("sIsMember", (r) -> r.setCommands().sIsMember(set, value));
			case 26 ->
				op("sInter same-slot", (r) -> r.setCommands().sInter(bytes(tag + "set:1"), bytes(tag + "set:2")));
			case 27 -> op("sAdd tagged", (r) -> r.setCommands().sAdd(bytes(tag + "set:" + (n % 2 + 1)), value));
			case 28 -> op("zAdd", (r) -> r.zSetCommands().zAdd(z, n % 17, value));
			case 29 -> op("zRangeWithScores", (r) -> r.zSetCommands().zRangeWithScores(z, 0, -1));
			case 30 -> op("zScore", (r) -> r.zSetCommands().zScore(z, value));
			case 31 -> op("zIncrBy", (r) -> r.zSetCommands().zIncrBy(z, 1.5, value));
			case 32 -> op("del cross-slot", (r) -> r.keyCommands().del(s, bytes("s:" + (n + 11))));
			case 33 -> op("exists cross-slot", (r) -> r.keyCommands().exists(s, c, h, bytes("s:" + (n + 2))));
			case 34 -> op("expire", (r) -> r.keyCommands().expire(s, 1000));
			case 35 -> op("type", (r) -> r.keyCommands().type(h));
			case 36 -> op("pfAdd", (r) -> r.hyperLogLogCommands().pfAdd(hll, value));
			case 37 -> op("pfCount", (r) -> r.hyperLogLogCommands().pfCount(hll));
			case 38 -> op("geoAdd", (r) -> r.geoCommands().geoAdd(geo, new Point(13.36, 38.11), value));
			case 39 -> op("geoPos", (r) -> r.geoCommands().geoPos(geo, value));
			case 40 ->
				op("xAdd", (r) -> r.streamCommands().xAdd(StreamRecords.newRecord().in(x).ofMap(Map.of(field, value))));
			default -> op("xLen", (r) -> r.streamCommands().xLen(x));
		};
	}

	private static Op op(String name, Function<RedisConnection, @Nullable Object> call) {
		return new Op(name, call, false);
	}

	/**
	 * Runs the commands one by one, leaving out the results of {@code void} commands as a
	 * pipeline does.
	 */
	static List<@Nullable Object> oneByOne(RedisConnection connection, List<Op> ops) {
		List<@Nullable Object> results = new ArrayList<>();
		for (Op op : ops) {
			Object result = op.call().apply(connection);
			if (!op.isVoid()) {
				results.add(result);
			}
		}
		return results;
	}

	static List<Object> pipelined(RedisConnection connection, List<Op> ops) {
		connection.openPipeline();
		for (Op op : ops) {
			op.call().apply(connection);
		}
		return connection.closePipeline();
	}

	/**
	 * Makes results comparable by value: bytes by content, collections by their elements,
	 * stream record ids (which differ between runs) by their sequence within the run.
	 */
	static @Nullable Object comparable(@Nullable Object result) {
		if (result instanceof byte[] bytes) {
			return ByteBuffer.wrap(bytes);
		}
		if (result instanceof RecordId) {
			return "a record id";
		}
		if (result instanceof Set<?> set) {
			Set<Object> copy = new HashSet<>();
			set.forEach((element) -> copy.add(comparable(element)));
			return copy;
		}
		if (result instanceof List<?> list) {
			List<Object> copy = new ArrayList<>();
			list.forEach((element) -> copy.add(comparable(element)));
			return copy;
		}
		if (result instanceof Map<?, ?> map) {
			Map<Object, Object> copy = new HashMap<>();
			map.forEach((key, value) -> copy.put(comparable(key), comparable(value)));
			return copy;
		}
		if (result instanceof org.springframework.data.redis.connection.zset.Tuple tuple) {
			return List.of(ByteBuffer.wrap(tuple.getValue()), tuple.getScore());
		}
		if (result instanceof Point point) {
			return List.of(Math.round(point.getX() * 1e6), Math.round(point.getY() * 1e6));
		}
		return result;
	}

}

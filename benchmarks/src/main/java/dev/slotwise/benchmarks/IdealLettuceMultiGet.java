package dev.slotwise.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

/**
 * The hand-written limit of a cross-slot {@code multiGet} over Lettuce on this machine
 * (issue 19), beside {@link IdealMultiGet}'s over Jedis: what any Lettuce-based client
 * pays for Netty's threads. No Spring, no redirect handling, no deadline. Per master one
 * Lettuce connection held open with auto-flush off; per call the keys are grouped by slot
 * as {@link IdealMultiGet} does, every master's per-slot {@code MGET}s are queued and
 * flushed once, and the caller then waits for the futures. The writes and reads run on
 * Lettuce's event loops, and the caller is woken when the last reply is in: the hand-offs
 * a Lettuce client cannot avoid.
 */
final class IdealLettuceMultiGet implements AutoCloseable {

	private final RedisClient client;

	private final StatefulRedisConnection<byte[], byte[]>[] connections;

	private final int[] owner;

	@SuppressWarnings("unchecked")
	IdealLettuceMultiGet(RedisTestCluster cluster) {
		this.client = RedisClient.create();
		List<RedisNode> masters = cluster.masters();
		this.connections = new StatefulRedisConnection[masters.size()];
		for (int i = 0; i < masters.size(); i++) {
			RedisNode master = masters.get(i);
			this.connections[i] = this.client.connect(ByteArrayCodec.INSTANCE,
					RedisURI.create(master.host(), master.port()));
			this.connections[i].setTimeout(Duration.ofSeconds(30));
			this.connections[i].setAutoFlushCommands(false);
		}
		this.owner = IdealMultiGet.slotOwners(cluster);
	}

	List<String> multiGet(List<String> keys) {
		int count = keys.size();
		Map<Integer, List<Integer>> positionsBySlot = new HashMap<>();
		byte[][] raw = new byte[count][];
		for (int i = 0; i < count; i++) {
			raw[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
			positionsBySlot.computeIfAbsent(SlotHash.slot(raw[i]), (slot) -> new ArrayList<>()).add(i);
		}
		List<RedisFuture<List<KeyValue<byte[], byte[]>>>> futures = new ArrayList<>(positionsBySlot.size());
		List<List<Integer>> positions = new ArrayList<>(positionsBySlot.size());
		boolean[] used = new boolean[this.connections.length];
		positionsBySlot.forEach((slot, inSlot) -> {
			byte[][] args = new byte[inSlot.size()][];
			for (int k = 0; k < args.length; k++) {
				args[k] = raw[inSlot.get(k)];
			}
			int master = this.owner[slot];
			used[master] = true;
			futures.add(this.connections[master].async().mget(args));
			positions.add(inSlot);
		});
		// Every master's batch is flushed before any reply is awaited.
		for (int m = 0; m < this.connections.length; m++) {
			if (used[m]) {
				this.connections[m].flushCommands();
			}
		}
		String[] values = new String[count];
		try {
			for (int f = 0; f < futures.size(); f++) {
				List<KeyValue<byte[], byte[]>> reply = futures.get(f).get(30, TimeUnit.SECONDS);
				List<Integer> inSlot = positions.get(f);
				for (int k = 0; k < reply.size(); k++) {
					KeyValue<byte[], byte[]> value = reply.get(k);
					values[inSlot.get(k)] = value.hasValue() ? new String(value.getValue(), StandardCharsets.UTF_8)
							: null;
				}
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
		return Arrays.asList(values);
	}

	@Override
	public void close() {
		for (StatefulRedisConnection<byte[], byte[]> connection : this.connections) {
			connection.close();
		}
		this.client.shutdown();
	}

}

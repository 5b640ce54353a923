package dev.slotwise.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;

/**
 * The physical-limit reference for a cross-slot {@code multiGet} on this machine (issue
 * 19): no Spring, no pool, no executor, no redirect handling, no deadline. Per master one
 * connection held open; per call the keys are hashed and linked into per-slot lists
 * through tables reused between calls (linear, no sort, no per-call table), every master
 * gets its whole pipelined batch of per-slot {@code MGET}s in one flush, and only then
 * are the replies read, master by master: the masters work in parallel while the one
 * calling thread never hands work to another thread.
 * <p>
 * Not thread-safe (one caller: the benchmarks using it run one thread). The slot table is
 * read once, at start; a topology change is not followed.
 */
final class IdealMultiGet implements AutoCloseable {

	private final FlushingConnection[] connections;

	/** Master index per slot. */
	private final int[] owner;

	/**
	 * Per slot, the first position of the current call in it, or -1; reset after every
	 * call.
	 */
	private final int[] head = new int[SlotHash.SLOT_COUNT];

	/** Per slot, the last position so far (to append in caller order). */
	private final int[] tail = new int[SlotHash.SLOT_COUNT];

	IdealMultiGet(RedisTestCluster cluster) {
		List<RedisNode> masters = cluster.masters();
		this.connections = new FlushingConnection[masters.size()];
		for (int i = 0; i < masters.size(); i++) {
			RedisNode master = masters.get(i);
			this.connections[i] = new FlushingConnection(new HostAndPort(master.host(), master.port()));
		}
		this.owner = slotOwners(cluster);
		Arrays.fill(this.head, -1);
	}

	/**
	 * Reads which master serves each slot from {@code CLUSTER NODES}.
	 * @param cluster the cluster
	 * @return per slot, the index of its master in {@link RedisTestCluster#masters()}
	 */
	static int[] slotOwners(RedisTestCluster cluster) {
		List<RedisNode> masters = cluster.masters();
		Map<Integer, Integer> indexByPort = new HashMap<>();
		for (int i = 0; i < masters.size(); i++) {
			indexByPort.put(masters.get(i).port(), i);
		}
		int[] owner = new int[SlotHash.SLOT_COUNT];
		Arrays.fill(owner, -1);
		for (String line : cluster.clusterNodes(masters.get(0))) {
			// <id> <ip:port@cport> <flags> <master> <ping> <pong> <epoch> <state> <slot
			// ranges...>
			String[] fields = line.split(" ");
			String address = fields[1].split("[@,]")[0];
			Integer master = indexByPort.get(Integer.parseInt(address.substring(address.lastIndexOf(':') + 1)));
			for (int i = 8; i < fields.length && master != null; i++) {
				if (fields[i].startsWith("[")) {
					continue;
				}
				String[] range = fields[i].split("-");
				int first = Integer.parseInt(range[0]);
				int last = (range.length > 1) ? Integer.parseInt(range[1]) : first;
				Arrays.fill(owner, first, last + 1, master);
			}
		}
		for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
			if (owner[slot] < 0) {
				throw new IllegalStateException("No master serves slot " + slot + " in " + cluster);
			}
		}
		return owner;
	}

	/**
	 * One cross-slot read: the values in the caller's order.
	 * @param keys the keys
	 * @return the values, {@code null} for a missing key
	 */
	List<String> multiGet(List<String> keys) {
		int count = keys.size();
		byte[][] raw = new byte[count][];
		int[] next = new int[count];
		int masters = this.connections.length;
		int[][] slotsOf = new int[masters][];
		int[] slotCount = new int[masters];
		for (int i = 0; i < count; i++) {
			byte[] key = keys.get(i).getBytes(StandardCharsets.UTF_8);
			raw[i] = key;
			int slot = SlotHash.slot(key);
			next[i] = -1;
			if (this.head[slot] < 0) {
				this.head[slot] = i;
				int master = this.owner[slot];
				int[] slots = slotsOf[master];
				if (slots == null) {
					slots = new int[16];
					slotsOf[master] = slots;
				}
				else if (slotCount[master] == slots.length) {
					slots = Arrays.copyOf(slots, slots.length * 2);
					slotsOf[master] = slots;
				}
				slots[slotCount[master]++] = slot;
			}
			else {
				next[this.tail[slot]] = i;
			}
			this.tail[slot] = i;
		}
		// Every master's batch is written before any reply is read.
		for (int m = 0; m < masters; m++) {
			for (int s = 0; s < slotCount[m]; s++) {
				int slot = slotsOf[m][s];
				List<byte[]> args = new ArrayList<>();
				for (int p = this.head[slot]; p >= 0; p = next[p]) {
					args.add(raw[p]);
				}
				this.connections[m].sendCommand(Protocol.Command.MGET, args.toArray(new byte[0][]));
			}
			if (slotCount[m] > 0) {
				this.connections[m].flushNow();
			}
		}
		String[] values = new String[count];
		for (int m = 0; m < masters; m++) {
			for (int s = 0; s < slotCount[m]; s++) {
				int slot = slotsOf[m][s];
				List<?> reply = (List<?>) this.connections[m].getUnflushedObject();
				int index = 0;
				for (int p = this.head[slot]; p >= 0; p = next[p]) {
					Object value = reply.get(index++);
					values[p] = (value != null) ? new String((byte[]) value, StandardCharsets.UTF_8) : null;
				}
				this.head[slot] = -1;
			}
		}
		return Arrays.asList(values);
	}

	@Override
	public void close() {
		for (FlushingConnection connection : this.connections) {
			connection.close();
		}
	}

	/**
	 * Jedis's connection with its flush reachable, so that one batch is written in one go
	 * without reading.
	 */
	private static final class FlushingConnection extends Connection {

		FlushingConnection(HostAndPort address) {
			super(address);
		}

		void flushNow() {
			flush();
		}

	}

}

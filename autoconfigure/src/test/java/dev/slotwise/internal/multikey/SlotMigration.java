package dev.slotwise.internal.multikey;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import dev.slotwise.internal.routing.SlotHash;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * One hash slot moved by hand from the master serving it to another master, step by step
 * as a resharding tool does it ({@code CLUSTER SETSLOT IMPORTING/MIGRATING},
 * {@code MIGRATE}, {@code CLUSTER SETSLOT NODE}), so that tests can hold the cluster in
 * any state of the move.
 *
 * @param cluster the cluster
 * @param slot the slot
 * @param source the master serving the slot before the move
 * @param target the master it moves to
 */
record SlotMigration(RedisTestCluster cluster, int slot, RedisNode source, RedisNode target) {

	/**
	 * Plans the move of the slot of a hash tag to another master.
	 * @param cluster the cluster
	 * @param tag the hash tag, braces included
	 * @return the planned move, not started
	 */
	static SlotMigration of(RedisTestCluster cluster, String tag) {
		int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
		RedisNode source = cluster.masterServingSlot(slot);
		RedisNode target = cluster.masters()
			.stream()
			.filter((master) -> !master.equals(source))
			.findFirst()
			.orElseThrow();
		return new SlotMigration(cluster, slot, source, target);
	}

	/**
	 * Marks the slot importing on the target, then migrating on the source.
	 */
	void begin() {
		String sourceId = id(this.source);
		String targetId = id(this.target);
		this.cluster.withAdmin(this.target, (jedis) -> jedis.clusterSetSlotImporting(this.slot, sourceId));
		this.cluster.withAdmin(this.source, (jedis) -> jedis.clusterSetSlotMigrating(this.slot, targetId));
	}

	/**
	 * Moves some keys of the slot to the target in one {@code MIGRATE}.
	 * @param keys the keys
	 */
	void moveKeys(List<String> keys) {
		List<String> args = new ArrayList<>(
				List.of(this.target.host(), String.valueOf(this.target.port()), "", "0", "5000"));
		args.addAll(this.cluster.security().migrateAuthentication());
		args.add("KEYS");
		args.addAll(keys);
		this.cluster.withAdmin(this.source,
				(jedis) -> jedis.sendCommand(Protocol.Command.MIGRATE, args.toArray(new String[0])));
	}

	/**
	 * Moves every key left on the source, a few at a time with a pause between batches,
	 * so that concurrent readers meet every state.
	 * @param pauseMillis the pause between batches
	 * @throws InterruptedException when interrupted while pausing
	 */
	void moveAllKeys(long pauseMillis) throws InterruptedException {
		while (true) {
			List<String> batch = this.cluster.withAdmin(this.source,
					(jedis) -> jedis.clusterGetKeysInSlot(this.slot, 20));
			if (batch.isEmpty()) {
				return;
			}
			moveKeys(batch);
			Thread.sleep(pauseMillis);
		}
	}

	/**
	 * Hands the slot to the target in the order the Redis Cluster specification
	 * prescribes: the target first (it stops importing and owns the slot), then the
	 * source, then the other masters. The other way round, for a moment the source would
	 * answer MOVED to the target while the still-importing target answers MOVED back to
	 * the source.
	 */
	void finish() {
		String targetId = id(this.target);
		List<RedisNode> order = new ArrayList<>(List.of(this.target, this.source));
		this.cluster.masters().stream().filter((master) -> !order.contains(master)).forEach(order::add);
		for (RedisNode master : order) {
			this.cluster.withAdmin(master, (jedis) -> jedis.clusterSetSlotNode(this.slot, targetId));
		}
	}

	/**
	 * Gives the slot away on the source only, while the target still merely imports it:
	 * the order the specification forbids, after which each of the two nodes redirects
	 * the slot to the other until {@link #finish()}.
	 */
	void giveAwayOnSourceOnly() {
		String targetId = id(this.target);
		this.cluster.withAdmin(this.source, (jedis) -> jedis.clusterSetSlotNode(this.slot, targetId));
	}

	/**
	 * Moves the slot back to the source with its keys, for tests on a shared cluster,
	 * which later tests expect in its original shape. Call after {@link #finish()}.
	 * @throws InterruptedException when interrupted while moving keys
	 */
	void moveBack() throws InterruptedException {
		SlotMigration back = new SlotMigration(this.cluster, this.slot, this.target, this.source);
		back.begin();
		back.moveAllKeys(0);
		back.finish();
		if (!this.cluster.masterServingSlot(this.slot).equals(this.source)) {
			throw new IllegalStateException("Slot " + this.slot + " did not move back to " + this.source);
		}
	}

	private String id(RedisNode node) {
		return this.cluster.withAdmin(node, Jedis::clusterMyId);
	}

}

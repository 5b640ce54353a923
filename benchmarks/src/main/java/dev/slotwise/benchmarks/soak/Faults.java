package dev.slotwise.benchmarks.soak;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.function.LongSupplier;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.params.MigrateParams;

/**
 * Injects seeded random faults into the cluster, one at a time, 10 to 20 seconds apart
 * (from the end of one to the start of the next, after the cluster is healthy again),
 * until told to stop. Every fault is recorded in the {@link FaultLog} with its start and
 * end, and every application is told to watch its recovery.
 */
final class Faults implements Runnable {

	/** Every kind, in the order the option lists them. */
	static final List<String> KINDS = List.of("kill", "failover", "pause", "clientkill", "migrate", "sleep");

	/** Jedis's command enumeration has no {@code DEBUG}. */
	private static final ProtocolCommand DEBUG = () -> "DEBUG".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

	private final RedisTestCluster cluster;

	private final List<String> kinds;

	private final List<Target> targets;

	private final List<String> keys;

	private final FaultLog log;

	private final LongSupplier clock;

	private final Random random;

	private final long lastStartNanos;

	private final int minGapSeconds;

	private final int maxGapSeconds;

	private volatile boolean stopped;

	/**
	 * @param lastStartNanos no fault starts after this time (the run keeps a quiet tail
	 * to check the end state)
	 */
	Faults(RedisTestCluster cluster, List<String> kinds, List<Target> targets, List<String> keys, FaultLog log,
			LongSupplier clock, long seed, long lastStartNanos, int minGapSeconds, int maxGapSeconds) {
		this.cluster = cluster;
		this.kinds = kinds;
		this.targets = targets;
		this.keys = keys;
		this.log = log;
		this.clock = clock;
		this.random = new Random(seed);
		this.lastStartNanos = lastStartNanos;
		this.minGapSeconds = minGapSeconds;
		this.maxGapSeconds = maxGapSeconds;
	}

	void stop() {
		this.stopped = true;
	}

	@Override
	public void run() {
		while (!this.stopped) {
			int gap = this.minGapSeconds + this.random.nextInt(this.maxGapSeconds - this.minGapSeconds + 1);
			if (!pause(Duration.ofSeconds(gap)) || this.clock.getAsLong() > this.lastStartNanos) {
				return;
			}
			String kind = this.kinds.get(this.random.nextInt(this.kinds.size()));
			try {
				inject(kind);
			}
			catch (RuntimeException ex) {
				System.err.printf("[soak] fault %s failed: %s%n", kind, ex);
			}
			try {
				this.cluster.awaitHealthy(Duration.ofSeconds(90));
			}
			catch (RuntimeException ex) {
				System.err.println("[soak] the cluster did not become healthy again: " + ex.getMessage());
			}
		}
	}

	private void inject(String kind) {
		switch (kind) {
			case "kill" -> kill();
			case "failover" -> failover();
			case "pause" -> clientPause();
			case "clientkill" -> clientKill();
			case "migrate" -> migrate();
			case "sleep" -> debugSleep();
			default -> throw new IllegalArgumentException("Unknown fault kind '" + kind + "'");
		}
	}

	/**
	 * SIGKILL of a master; once a replica took over, the master is started again (empty:
	 * no persistence).
	 */
	private void kill() {
		RedisNode master = pick(this.cluster.masters());
		List<RedisNode> replicas = this.cluster.replicasOf(master);
		FaultLog.Fault fault = begin("kill", "SIGKILL " + master + ", restarted after a replica took over");
		this.cluster.kill(master);
		awaitCondition(Duration.ofSeconds(30), () -> replicas.stream().anyMatch(this::isMasterQuietly));
		pause(Duration.ofMillis(1000 + this.random.nextInt(2000)));
		this.cluster.restart(master);
		end(fault);
	}

	/**
	 * {@code CLUSTER FAILOVER} on a replica: its master hands over after the replica
	 * caught up.
	 */
	private void failover() {
		RedisNode replica = pick(this.cluster.replicas());
		FaultLog.Fault fault = begin("failover", "CLUSTER FAILOVER on " + replica);
		this.cluster.withAdmin(replica, (jedis) -> jedis.sendCommand(Protocol.Command.CLUSTER, "FAILOVER"));
		awaitCondition(Duration.ofSeconds(15), () -> isMasterQuietly(replica));
		end(fault);
	}

	/** {@code CLIENT PAUSE} of a master for 1 to 3 seconds: every client waits. */
	private void clientPause() {
		RedisNode master = pick(this.cluster.masters());
		long millis = 1000 + this.random.nextInt(2001);
		FaultLog.Fault fault = begin("pause", "CLIENT PAUSE " + millis + " ms on " + master);
		this.cluster.withAdmin(master, (jedis) -> jedis.clientPause(millis));
		pause(Duration.ofMillis(millis));
		end(fault);
	}

	/** {@code CLIENT KILL} of every connection of every application on every node. */
	private void clientKill() {
		FaultLog.Fault fault = begin("clientkill", "CLIENT KILL of the applications' connections on every node");
		long killed = 0;
		for (RedisNode node : this.cluster.nodes()) {
			for (Target target : this.targets) {
				killed += this.cluster.killClients(node, target.clientName);
			}
		}
		end(fault);
		System.out.printf("[soak]   %d connections killed%n", killed);
	}

	/**
	 * Moves the slots of one to three keys in use (with every key in them) from their
	 * master to another, the way {@code redis-cli --cluster reshard} does: IMPORTING,
	 * MIGRATING, {@code MIGRATE} in rounds, then the new owner announced to every master.
	 * A pause between the steps leaves clients time to meet ASK redirects.
	 */
	private void migrate() {
		int count = 1 + this.random.nextInt(3);
		List<RedisNode> masters = this.cluster.masters();
		StringBuilder detail = new StringBuilder();
		List<Integer> slots = new java.util.ArrayList<>();
		for (int i = 0; i < count; i++) {
			String key = this.keys.get(this.random.nextInt(this.keys.size()));
			int slot = this.cluster.keySlot(key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
			if (!slots.contains(slot)) {
				slots.add(slot);
			}
		}
		int destinationChoice = this.random.nextInt(masters.size() - 1);
		detail.append("slots ").append(slots);
		FaultLog.Fault fault = begin("migrate", "migrate " + detail);
		long moved = 0;
		for (int slot : slots) {
			RedisNode source = this.cluster.masterServingSlot(slot);
			List<RedisNode> others = masters.stream().filter((node) -> !node.equals(source)).toList();
			if (others.isEmpty()) {
				continue;
			}
			RedisNode destination = others.get(destinationChoice % others.size());
			moved += moveSlot(slot, source, destination);
		}
		end(fault);
		System.out.printf("[soak]   %d keys moved%n", moved);
	}

	private long moveSlot(int slot, RedisNode source, RedisNode destination) {
		String sourceId = this.cluster.withAdmin(source, Jedis::clusterMyId);
		String destinationId = this.cluster.withAdmin(destination, Jedis::clusterMyId);
		this.cluster.withAdmin(destination, (jedis) -> jedis.clusterSetSlotImporting(slot, sourceId));
		this.cluster.withAdmin(source, (jedis) -> jedis.clusterSetSlotMigrating(slot, destinationId));
		pause(Duration.ofMillis(300));
		long moved = 0;
		while (true) {
			List<String> keys = this.cluster.withAdmin(source, (jedis) -> jedis.clusterGetKeysInSlot(slot, 50));
			if (keys.isEmpty()) {
				break;
			}
			this.cluster.withAdmin(source, (jedis) -> jedis.migrate(destination.host(), destination.port(), 0, 5000,
					new MigrateParams(), keys.toArray(String[]::new)));
			moved += keys.size();
			pause(Duration.ofMillis(100));
		}
		this.cluster.withAdmin(destination, (jedis) -> jedis.clusterSetSlotNode(slot, destinationId));
		this.cluster.withAdmin(source, (jedis) -> jedis.clusterSetSlotNode(slot, destinationId));
		for (RedisNode master : this.cluster.masters()) {
			if (!master.equals(source) && !master.equals(destination)) {
				this.cluster.withAdmin(master, (jedis) -> jedis.clusterSetSlotNode(slot, destinationId));
			}
		}
		return moved;
	}

	/**
	 * {@code DEBUG SLEEP} of a replica for 1 to 3 seconds (topology refreshes that ask it
	 * wait).
	 */
	private void debugSleep() {
		RedisNode replica = pick(this.cluster.replicas());
		double seconds = 1 + this.random.nextInt(21) / 10.0;
		FaultLog.Fault fault = begin("sleep", "DEBUG SLEEP " + seconds + " s on " + replica);
		this.cluster.withAdmin(replica, (jedis) -> jedis.sendCommand(DEBUG, "SLEEP", Double.toString(seconds)));
		end(fault);
	}

	private FaultLog.Fault begin(String kind, String detail) {
		FaultLog.Fault fault = this.log.start(kind, detail, this.clock.getAsLong());
		this.targets.forEach((target) -> target.watch(fault));
		System.out.printf("[soak] %6.1fs fault %d: %s%n", fault.startNanos / 1e9, fault.number, detail);
		return fault;
	}

	private void end(FaultLog.Fault fault) {
		fault.endNanos = this.clock.getAsLong();
	}

	private boolean isMasterQuietly(RedisNode node) {
		try {
			return this.cluster.isMaster(node);
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	private <T> T pick(List<T> from) {
		return from.get(this.random.nextInt(from.size()));
	}

	private static void awaitCondition(Duration timeout, java.util.function.BooleanSupplier condition) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s");
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

	/** Sleeps unless stopped; false when stopped meanwhile. */
	private boolean pause(Duration duration) {
		long deadline = System.nanoTime() + duration.toNanos();
		while (!this.stopped && System.nanoTime() < deadline) {
			try {
				Thread.sleep(Math.min(100, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}
		return !this.stopped;
	}

}

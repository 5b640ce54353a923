package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code slotwise.multikey.read-from=replica} or {@code replica-preferred}, a
 * replica that is down or hangs costs no read: the batches it fails are served by its
 * master, with the right values, counted on the servers.
 */
@WithRedisCluster(dedicated = true)
class JedisReadFromReplicaFailureIntegrationTests {

	private static final int KEYS_PER_CALL = 100;

	@ParameterizedTest
	@ValueSource(strings = { "replica", "replica-preferred" })
	void aKilledReplicasReadsGoToItsMaster(String readFrom, RedisTestCluster cluster) {
		cluster.reset();
		RedisNode master = cluster.masters().get(0);
		RedisNode victim = cluster.replicasOf(master).get(0);
		runner(cluster, readFrom).run((context) -> {
			assertThat(context).hasNotFailed();
			JedisReadFromIntegrationTests.assertReplicaPools(context, cluster);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> values = keyspace(template, cluster);
			Random random = new Random(1);
			// Every replica serves, and holds READONLY connections, before one of them
			// goes.
			for (int call = 0; call < 20; call++) {
				readAndCheck(template, values, random, call);
			}
			cluster.kill(victim);
			try {
				cluster.resetStats();
				for (int call = 0; call < 100; call++) {
					readAndCheck(template, values, random, call);
				}
				assertThat(cluster.commandCalls(master, "mget")).as("reads of the killed replica's master")
					.isPositive();
				for (RedisNode other : cluster.masters()) {
					if (!other.equals(master)) {
						assertThat(cluster.commandCalls(other, "mget")).as("reads of master %s", other).isZero();
					}
				}
				for (RedisNode replica : cluster.replicas()) {
					if (!replica.equals(victim)) {
						assertThat(cluster.commandCalls(replica, "mget")).as("reads of replica %s", replica)
							.isPositive();
					}
				}
			}
			finally {
				cluster.restart(victim);
			}
		});
		cluster.awaitHealthy();
		cluster.awaitReplicated(master, Duration.ofSeconds(30));
	}

	@ParameterizedTest
	@ValueSource(strings = { "replica", "replica-preferred" })
	void aHangingReplicasReadsGoToItsMasterWithinTheCallTimeout(String readFrom, RedisTestCluster cluster) {
		cluster.reset();
		RedisNode master = cluster.masters().get(0);
		RedisNode paused = cluster.replicasOf(master).get(0);
		// The topology is cached for the whole test: a refresh runs on a caller's stack
		// and may ask the hanging replica (slotwise.topology.prefer-replicas), which is
		// the topology's fault, not the reads' under test.
		runner(cluster, readFrom).withPropertyValues("slotwise.topology.cache-ttl=5m").run((context) -> {
			assertThat(context).hasNotFailed();
			JedisReadFromIntegrationTests.assertReplicaPools(context, cluster);
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> values = keyspace(template, cluster);
			Random random = new Random(2);
			for (int call = 0; call < 20; call++) {
				readAndCheck(template, values, random, call);
			}
			cluster.resetStats();
			// spring.data.redis.timeout=2s bounds each call to 2 s; a replica gets half
			// of it before its batch goes to the master. While paused the replica accepts
			// connections and commands but answers none.
			long pauseMillis = 6000;
			long pausedAt = System.nanoTime();
			cluster.withAdmin(paused, (jedis) -> jedis.clientPause(pauseMillis));
			// replica-preferred leaves the hanging replica aside after its first failure.
			// replica tries it for every batch, so only the first call is checked there:
			// later ones need a new connection to it, whose handshake waits out the whole
			// socket timeout (the README says so).
			int calls = readFrom.equals("replica") ? 1 : 20;
			for (int call = 0; call < calls; call++) {
				readAndCheck(template, values, random, call);
			}
			assertThat(System.nanoTime() - pausedAt).as("the calls ran while the replica was paused")
				.isLessThan(Duration.ofMillis(pauseMillis).toNanos());
			assertThat(cluster.commandCalls(master, "mget")).as("reads of the paused replica's master").isPositive();
			for (RedisNode other : cluster.masters()) {
				if (!other.equals(master)) {
					assertThat(cluster.commandCalls(other, "mget")).as("reads of master %s", other).isZero();
				}
			}
		});
		// The admin connection's commands wait out the pause (5 s socket timeout): poll
		// until the replica answers.
		JedisReadFromIntegrationTests.await("the paused replica to answer", () -> {
			try {
				return "PONG".equals(cluster.withAdmin(paused, (jedis) -> jedis.ping()));
			}
			catch (RuntimeException ex) {
				return false;
			}
		});
	}

	private static Map<String, String> keyspace(StringRedisTemplate template, RedisTestCluster cluster) {
		Map<String, String> values = new LinkedHashMap<>();
		for (int i = 0; i < 2000; i++) {
			if (i % 4 != 0) {
				values.put("jrff:" + i, "v" + i);
			}
		}
		template.opsForValue().multiSet(values);
		JedisReadFromIntegrationTests.awaitReplication(cluster);
		return values;
	}

	private static void readAndCheck(StringRedisTemplate template, Map<String, String> values, Random random,
			int call) {
		List<String> keys = new ArrayList<>(KEYS_PER_CALL);
		for (int i = 0; i < KEYS_PER_CALL; i++) {
			keys.add("jrff:" + random.nextInt(2000));
		}
		assertThat(template.opsForValue().multiGet(keys)).as("call %d", call)
			.isEqualTo(keys.stream().map(values::get).toList());
	}

	private static ApplicationContextRunner runner(RedisTestCluster cluster, String readFrom) {
		return JedisReadFromIntegrationTests.runner(cluster, readFrom);
	}

}

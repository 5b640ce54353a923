package dev.slotwise.internal.multikey;

import java.util.List;
import java.util.function.Function;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A cluster transaction whose slot moves while its commands are queued ({@code MOVED}
 * once the slot changed owner, {@code ASK} while it migrates): the server aborts the
 * {@code EXEC}, Slotwise says the slot moved with a retryable exception, nothing of the
 * transaction is applied, and a retry runs on the slot's new master.
 */
@WithRedisCluster(dedicated = true)
class TransactionMigrationIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void slotMovedWhileQueueingAbortsTheWholeTransactionWithARetryableException(String client, RedisTestCluster cluster)
			throws Exception {
		String tag = "{tx-moved-" + client + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		runner(client, cluster).run((context) -> {
			StringRedisTemplate template = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
			template.opsForValue().set(tag + "a", "old");
			template.opsForValue().set(tag + "b", "old");
			assertThatExceptionOfType(TransientDataAccessResourceException.class)
				.isThrownBy(() -> template.execute(session((ops) -> {
					ops.multi();
					ops.opsForValue().set(tag + "a", "new");
					// The slot changes owner between two queued commands.
					migration.begin();
					moveAllKeys(migration);
					migration.finish();
					ops.opsForValue().set(tag + "b", "new");
					return ops.exec();
				})))
				.withMessageContaining("Slot " + cluster.keySlot(tag.getBytes()) + " moved away from")
				.withMessageContaining("MOVED")
				.withMessageContaining("nothing was applied");
			// Nothing applied: both keys as before, on the new owner.
			assertThat(valuesOn(cluster, migration, tag)).containsExactly("old", "old");
			// A retry (after the topology refresh the failure asked for) runs on the new
			// master.
			List<Object> results = retry(() -> template.execute(session((ops) -> {
				ops.multi();
				ops.opsForValue().set(tag + "a", "retried");
				ops.opsForValue().set(tag + "b", "retried");
				return ops.exec();
			})));
			assertThat(results).containsExactly(true, true);
			assertThat(valuesOn(cluster, migration, tag)).containsExactly("retried", "retried");
		});
		migration.moveBack();
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void askWhileQueueingAbortsTheWholeTransactionWithARetryableException(String client, RedisTestCluster cluster)
			throws Exception {
		String tag = "{tx-ask-" + client + "}";
		SlotMigration migration = SlotMigration.of(cluster, tag);
		runner(client, cluster).run((context) -> {
			StringRedisTemplate template = new StringRedisTemplate(context.getBean(RedisConnectionFactory.class));
			template.opsForValue().set(tag + "a", "old");
			template.opsForValue().set(tag + "b", "old");
			assertThatExceptionOfType(TransientDataAccessResourceException.class)
				.isThrownBy(() -> template.execute(session((ops) -> {
					ops.multi();
					ops.opsForValue().set(tag + "a", "new");
					// The slot starts migrating and key b leaves the source: the source
					// answers ASK for it.
					migration.begin();
					migration.moveKeys(List.of(tag + "b"));
					ops.opsForValue().set(tag + "b", "new");
					return ops.exec();
				})))
				.withMessageContaining("ASK")
				.withMessageContaining("nothing was applied");
			String onSource = cluster.withAdmin(migration.source(), (jedis) -> jedis.get(tag + "a"));
			String onTarget = cluster.withAdmin(migration.target(), (jedis) -> {
				jedis.sendCommand(redis.clients.jedis.Protocol.Command.ASKING);
				return jedis.get(tag + "b");
			});
			assertThat(onSource).isEqualTo("old");
			assertThat(onTarget).isEqualTo("old");
			migration.moveAllKeys(0);
			migration.finish();
		});
		migration.moveBack();
	}

	private static void moveAllKeys(SlotMigration migration) {
		try {
			migration.moveAllKeys(0);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static List<String> valuesOn(RedisTestCluster cluster, SlotMigration migration, String tag) {
		RedisNode owner = migration.target();
		return cluster.withAdmin(owner, (jedis) -> jedis.mget(tag + "a", tag + "b"));
	}

	private static <T> T retry(java.util.function.Supplier<T> call) throws InterruptedException {
		for (int attempt = 1;; attempt++) {
			try {
				return call.get();
			}
			catch (TransientDataAccessResourceException ex) {
				if (attempt == 20) {
					throw ex;
				}
				Thread.sleep(250);
			}
		}
	}

	private static <T> SessionCallback<T> session(Function<RedisOperations<String, String>, T> body) {
		return new SessionCallback<>() {

			@Override
			@SuppressWarnings("unchecked")
			public <K, V> T execute(RedisOperations<K, V> operations) {
				return body.apply((RedisOperations<String, String>) operations);
			}

		};
	}

	private static ApplicationContextRunner runner(String client, RedisTestCluster cluster) {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=" + client,
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.data.redis.timeout=2s");
	}

}

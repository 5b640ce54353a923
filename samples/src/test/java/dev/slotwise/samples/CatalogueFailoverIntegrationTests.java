package dev.slotwise.samples;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

import dev.slotwise.test.cluster.RedisNode;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application tested as an application team would test its own:
 * {@code @SpringBootTest} with {@code @WithRedisCluster} from {@code slotwise-test}, no
 * Redis property in the test (the cluster replaces the nodes of {@code application.yml}),
 * and a master crash from the fault helpers, on both clients. The catalogue must serve
 * every product again, by itself, once a replica has taken over.
 */
@SpringBootTest(webEnvironment = WebEnvironment.NONE)
@WithRedisCluster(dedicated = true)
class CatalogueFailoverIntegrationTests {

	private static final int PRODUCTS = 500;

	@Nested
	@TestPropertySource(properties = "spring.data.redis.client-type=jedis")
	class OverJedis extends CatalogueSurvivesAMasterCrash {

		@Test
		void servesEveryProductAfterItsMasterCrashed(RedisTestCluster cluster) throws InterruptedException {
			assertThat(this.connectionFactory.getClass().getSimpleName()).contains("Jedis");
			crashAMasterAndReadEverything(cluster);
		}

	}

	@Nested
	@TestPropertySource(properties = "spring.data.redis.client-type=lettuce")
	class OverLettuce extends CatalogueSurvivesAMasterCrash {

		@Test
		void servesEveryProductAfterItsMasterCrashed(RedisTestCluster cluster) throws InterruptedException {
			assertThat(this.connectionFactory.getClass().getSimpleName()).contains("Lettuce");
			crashAMasterAndReadEverything(cluster);
		}

	}

	abstract static class CatalogueSurvivesAMasterCrash {

		@Autowired
		ProductCatalogue catalogue;

		@Autowired
		RedisConnectionFactory connectionFactory;

		void crashAMasterAndReadEverything(RedisTestCluster cluster) throws InterruptedException {
			int[] ids = IntStream.range(0, PRODUCTS).toArray();
			this.catalogue.load(PRODUCTS);
			List<String> before = this.catalogue.get(ids);
			assertThat(before).hasSize(PRODUCTS).doesNotContainNull();

			RedisNode master = cluster.masterServing("product:0");
			RedisNode promoted = cluster.killMaster(master);
			assertThat(cluster.masterServing("product:0")).isEqualTo(promoted);

			assertThat(readUntilServed(ids, Duration.ofSeconds(30))).isEqualTo(before);

			cluster.restartAndAwaitHealthy(master);
			cluster.resetStats();
			assertThat(this.catalogue.get(ids)).isEqualTo(before);
			// The servers' own count: the keys of the crashed master are read from the
			// replica that took over.
			assertThat(cluster.commandCalls(promoted, "mget")).isPositive();
			assertThat(cluster.commandCalls(master, "mget")).isZero();
		}

		/**
		 * Reads like a user who retries: the application has to find the new master by
		 * itself.
		 */
		private List<String> readUntilServed(int[] ids, Duration timeout) throws InterruptedException {
			long deadline = System.nanoTime() + timeout.toNanos();
			RuntimeException last = null;
			while (System.nanoTime() < deadline) {
				try {
					List<String> values = this.catalogue.get(ids);
					if (!values.contains(null)) {
						return values;
					}
				}
				catch (RuntimeException ex) {
					last = ex;
				}
				Thread.sleep(200);
			}
			throw new AssertionError("The catalogue did not serve every product within " + timeout, last);
		}

	}

}

package dev.slotwise.internal.multikey;

import java.util.List;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import dev.slotwise.test.jvm.ForkedJvm;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Reactive cross-slot calls never block a non-blocking thread:
 * {@link ReactiveNonBlockingApplication} runs 140 of them (multiSet, multiGet,
 * countExistingKeys, scan, keys, delete, unlink of 500 keys each) subscribed on Reactor's
 * parallel scheduler, under BlockHound with Lettuce's event loops marked non-blocking as
 * well, in a JVM of its own started with the flag BlockHound needs on Java 13+. Checked
 * to find what it should: with a {@code Thread.sleep(1)} added to the engine's reply
 * handling, it reports the sleep on a Lettuce event loop.
 */
@WithRedisCluster
class ReactiveNonBlockingIntegrationTests {

	@Test
	void reactiveCrossSlotCallsBlockNoNonBlockingThread(RedisTestCluster cluster) throws Exception {
		ForkedJvm.Result result = ForkedJvm.run(System.getProperty("java.class.path"),
				List.of("-XX:+AllowRedefinitionToAddDeleteMethods"), ReactiveNonBlockingApplication.class,
				cluster.nodesProperty());
		String all = result.output();
		// Its end says what went wrong: the rounds, the blocking calls found, or a stack
		// trace.
		String printed = all.substring(Math.max(0, all.length() - 8000));
		assertThat(result.exitValue()).as(printed).isZero();
		assertThat(printed).as(printed).contains("round 20 ok").contains("BLOCKING CALLS: 0");
		// The reactive calls ran on the engine: per-slot MGETs, no per-key GETs.
		assertThat(cluster.totalCommandCalls("mget")).isPositive();
		assertThat(cluster.totalCommandCalls("get")).isZero();
	}

}

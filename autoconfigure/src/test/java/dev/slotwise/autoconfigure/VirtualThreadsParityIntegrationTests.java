package dev.slotwise.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.slotwise.internal.multikey.jedis.MultiKeyExecutor;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * With {@code spring.threads.virtual.enabled=true} over Jedis, Slotwise's multi-key
 * engine runs its node batches on virtual threads, as Spring Boot's own Redis cluster
 * executor does, and 50 concurrent callers on virtual threads each finish their
 * cross-slot calls. The same callers run against plain Spring Boot in the same test,
 * bounded in time; whether they finished there is printed, not asserted.
 * <p>
 * Virtual threads need Java 21: on Java 17 the test is skipped. Run it on the JDK 25
 * these machines have:
 * {@code JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64 ./mvnw -B -o -pl autoconfigure verify
 * -Dit.test=VirtualThreadsParityIntegrationTests}.
 */
@WithRedisCluster
class VirtualThreadsParityIntegrationTests {

	private static final int CALLERS = 50;

	private static final int CALLS = 5;

	private static final int KEYS = 100;

	@BeforeAll
	static void virtualThreadsNeedJava21() {
		assumeTrue(Runtime.version().feature() >= 21,
				"virtual threads need Java 21+; this JVM is Java " + Runtime.version().feature());
	}

	@Test
	void fiftyVirtualThreadCallersFinishOverJedis(RedisTestCluster cluster) throws Exception {
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.client-type=jedis",
					"spring.data.redis.cluster.nodes=" + cluster.nodesProperty(), "spring.threads.virtual.enabled=true",
					"spring.data.redis.timeout=5s");
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < KEYS; i++) {
			keys.add("virtual:" + i);
		}
		long[] slotwise = new long[3];
		runner.run((context) -> {
			MultiKeyExecutor executor = context.getBean(MultiKeyExecutor.class);
			Thread probe = threadFactory(executor).newThread(() -> {
			});
			assertThat(isVirtual(probe)).as("the engine's threads are virtual").isTrue();
			slotwise[0] = callers(context.getBean(StringRedisTemplate.class), keys, 60);
			slotwise[1] = CALLERS * CALLS;
		});
		long[] plain = new long[1];
		runner.withPropertyValues("slotwise.enabled=false")
			.run((context) -> plain[0] = callers(context.getBean(StringRedisTemplate.class), keys, 20));
		System.out.printf(
				"virtual threads (Jedis, %d callers x %d cross-slot multiGet of %d keys, %d cores): "
						+ "Slotwise %d of %d calls finished; plain Spring Boot %d of %d within 20 s%n",
				CALLERS, CALLS, KEYS, Runtime.getRuntime().availableProcessors(), slotwise[0], slotwise[1], plain[0],
				CALLERS * CALLS);
		assertThat(slotwise[0]).isEqualTo(slotwise[1]);
	}

	/**
	 * Runs the callers on virtual threads and returns how many calls finished within the
	 * time given; callers still running then are interrupted.
	 */
	private static long callers(StringRedisTemplate template, List<String> keys, int seconds) throws Exception {
		AtomicInteger finished = new AtomicInteger();
		CountDownLatch done = new CountDownLatch(CALLERS);
		ThreadFactory virtual = new VirtualThreadTaskExecutor("virtual-caller-").getVirtualThreadFactory();
		List<Thread> threads = new ArrayList<>();
		long started = System.nanoTime();
		for (int i = 0; i < CALLERS; i++) {
			Thread thread = virtual.newThread(() -> {
				try {
					for (int call = 0; call < CALLS; call++) {
						assertThat(template.opsForValue().multiGet(keys)).hasSize(KEYS);
						finished.incrementAndGet();
					}
				}
				finally {
					done.countDown();
				}
			});
			threads.add(thread);
			thread.start();
		}
		boolean all = done.await(seconds, TimeUnit.SECONDS);
		if (!all) {
			threads.forEach(Thread::interrupt);
		}
		System.out.printf("  %d callers: %s after %d ms%n", CALLERS, all ? "all done" : "not all done",
				TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
		return finished.get();
	}

	private static ThreadFactory threadFactory(MultiKeyExecutor executor) {
		return executor.threadPool().getThreadFactory();
	}

	private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
		Method isVirtual = Thread.class.getMethod("isVirtual");
		return (boolean) isVirtual.invoke(thread);
	}

}

package dev.slotwise.internal.multikey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;

import dev.slotwise.autoconfigure.SlotwiseAutoConfiguration;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisReactiveAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ScanOptions;

/**
 * Runs reactive cross-slot calls under BlockHound, for
 * {@link ReactiveNonBlockingIntegrationTests}, in a JVM of its own (BlockHound
 * instruments the JDK for good, so it must not share the test run's JVM). Lettuce's I/O
 * threads and Reactor's non-blocking schedulers are marked non-blocking; every blocking
 * call BlockHound sees on them (sleeping, parking, blocking I/O) is recorded with its
 * stack trace. Prints the calls' results and the first blocking calls found, then
 * {@code BLOCKING CALLS: n}; exits 0 when the calls succeeded, whatever it found (the
 * test judges).
 * <p>
 * Argument: the cluster nodes ({@code host:port,...}).
 */
public final class ReactiveNonBlockingApplication {

	private ReactiveNonBlockingApplication() {
	}

	public static void main(String[] args) {
		Queue<String> blocking = new ConcurrentLinkedQueue<>();
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.cluster.nodes=" + args[0], "spring.data.redis.client-type=lettuce",
					"spring.main.banner-mode=off")
			.run()) {
			ReactiveStringRedisTemplate template = context.getBean(ReactiveStringRedisTemplate.class);
			// Connections open and warm before instrumenting: connecting is not the
			// calls' job.
			run(template, 0);
			BlockHound.builder()
				.nonBlockingThreadPredicate((current) -> current.or((thread) -> thread.getName().contains("EventLoop")))
				.blockingMethodCallback((method) -> {
					StringBuilder trace = new StringBuilder(
							"BLOCKING " + method + " on " + Thread.currentThread().getName());
					for (StackTraceElement frame : new Throwable().getStackTrace()) {
						trace.append("\n\tat ").append(frame);
					}
					blocking.add(trace.toString());
				})
				.install();
			for (int round = 1; round <= 20; round++) {
				run(template, round);
			}
		}
		// The first few are enough to tell where; the count tells how often.
		blocking.stream().limit(3).forEach(System.out::println);
		System.out.println("BLOCKING CALLS: " + blocking.size());
	}

	/**
	 * One round: multiSet, multiGet, countExistingKeys, scan, keys, delete and unlink of
	 * 500 cross-slot keys, each subscribed on Reactor's parallel scheduler, results
	 * checked.
	 */
	private static void run(ReactiveStringRedisTemplate template, int round) {
		Map<String, String> entries = new LinkedHashMap<>();
		for (int i = 0; i < 500; i++) {
			entries.put("non-blocking:" + round + ":" + i, "value-" + i);
		}
		List<String> keys = new ArrayList<>(entries.keySet());
		Duration wait = Duration.ofSeconds(30);
		check(Boolean.TRUE.equals(onParallel(template.opsForValue().multiSet(entries)).block(wait)), "multiSet");
		List<String> values = onParallel(template.opsForValue().multiGet(keys)).block(wait);
		check(new ArrayList<>(entries.values()).equals(values), "multiGet returned " + values);
		check(Long.valueOf(500).equals(onParallel(template.countExistingKeys(keys)).block(wait)), "countExistingKeys");
		// The cluster-wide key walks, page by page through the emulated SCAN cursor, and
		// KEYS on every master.
		ScanOptions options = ScanOptions.scanOptions().match("non-blocking:" + round + ":*").count(50).build();
		check(new HashSet<>(keys).equals(onParallel(template.scan(options).collect(Collectors.toSet())).block(wait)),
				"scan");
		check(new HashSet<>(keys)
			.equals(onParallel(template.keys("non-blocking:" + round + ":*").collect(Collectors.toSet())).block(wait)),
				"keys");
		check(Long.valueOf(250)
			.equals(onParallel(template.delete(Flux.fromIterable(keys.subList(0, 250)))).block(wait)), "delete");
		check(Long.valueOf(250)
			.equals(onParallel(template.unlink(Flux.fromIterable(keys.subList(250, 500)))).block(wait)), "unlink");
		System.out.println("round " + round + " ok");
	}

	private static <T> Mono<T> onParallel(Mono<T> call) {
		return call.subscribeOn(Schedulers.parallel()).publishOn(Schedulers.parallel());
	}

	private static void check(boolean condition, String what) {
		if (!condition) {
			throw new IllegalStateException("Wrong result: " + what);
		}
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class,
			DataRedisReactiveAutoConfiguration.class })
	static class Application {

	}

}

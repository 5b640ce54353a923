package dev.slotwise.benchmarks;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.StandaloneRedisServer;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The transaction of {@link TransactionBenchmark} (a {@code MULTI}, 10 {@code SET}s on
 * one slot, {@code EXEC}) on Slotwise over a 3+3 cluster and on plain Spring Boot over
 * one standalone server, both clients, all four in one JVM: each round runs every set-up
 * for the same number of transactions in a rotated order and reads the elapsed time and
 * the process's CPU time around each, so that the set-ups share the load of a busy
 * machine. Prints the median round per set-up and the ratio to the standalone set-up of
 * the same client, with its range (min/max over max/min). <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.slotwise.benchmarks.TransactionInterleaved [transactions] [rounds]
 * </pre>
 */
public final class TransactionInterleaved {

	private TransactionInterleaved() {
	}

	public static void main(String[] args) {
		int transactions = (args.length > 0) ? Integer.parseInt(args[0]) : 2000;
		int rounds = (args.length > 1) ? Integer.parseInt(args[1]) : 9;
		com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory
			.getOperatingSystemMXBean();
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < TransactionBenchmark.COMMANDS; i++) {
			keys.add("{tx:bench}:" + i);
		}
		Map<String, ConfigurableApplicationContext> contexts = new LinkedHashMap<>();
		Map<String, double[]> elapsed = new LinkedHashMap<>();
		Map<String, double[]> cpu = new LinkedHashMap<>();
		try (RedisTestCluster cluster = RedisTestCluster.start(ClusterShape.DEFAULT);
				StandaloneRedisServer standalone = StandaloneRedisServer.start(null)) {
			String[] address = standalone.address().split(":");
			try {
				for (String client : List.of("jedis", "lettuce")) {
					contexts.put(client + "/slotwise", BenchmarkApplication.start(cluster,
							"spring.data.redis.client-type=" + client, "slotwise.enabled=true"));
					contexts.put(client + "/standalone", new SpringApplicationBuilder(BenchmarkApplication.class)
						.web(WebApplicationType.NONE)
						.properties("spring.data.redis.host=" + address[0], "spring.data.redis.port=" + address[1],
								"spring.main.banner-mode=off", "logging.level.root=warn",
								"spring.data.redis.client-type=" + client, "slotwise.enabled=false")
						.run());
				}
				for (String name : contexts.keySet()) {
					run(contexts.get(name).getBean(StringRedisTemplate.class), keys, transactions);
					elapsed.put(name, new double[rounds]);
					cpu.put(name, new double[rounds]);
				}
				List<String> names = new ArrayList<>(contexts.keySet());
				for (int round = 0; round < rounds; round++) {
					for (int i = 0; i < names.size(); i++) {
						String name = names.get((round + i) % names.size());
						StringRedisTemplate template = contexts.get(name).getBean(StringRedisTemplate.class);
						long cpuStart = os.getProcessCpuTime();
						long start = System.nanoTime();
						run(template, keys, transactions);
						elapsed.get(name)[round] = (System.nanoTime() - start) / 1000.0 / transactions;
						cpu.get(name)[round] = (os.getProcessCpuTime() - cpuStart) / 1000.0 / transactions;
					}
				}
			}
			finally {
				contexts.values().forEach(ConfigurableApplicationContext::close);
			}
		}
		System.out.printf(Locale.ROOT, "%nTransaction of %d SETs, %d per round, %d rounds, median (min-max)%n%n",
				TransactionBenchmark.COMMANDS, transactions, rounds);
		System.out
			.println("| client | target | elapsed µs | ÷ standalone (range) | JVM CPU µs | ÷ standalone (range) |");
		System.out.println("|---|---|---|---|---|---|");
		for (String name : contexts.keySet()) {
			String baseline = name.substring(0, name.indexOf('/')) + "/standalone";
			System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s |%n", name.substring(0, name.indexOf('/')),
					name.substring(name.indexOf('/') + 1), summary(elapsed.get(name)),
					ratio(elapsed.get(name), elapsed.get(baseline)), summary(cpu.get(name)),
					ratio(cpu.get(name), cpu.get(baseline)));
		}
	}

	private static void run(StringRedisTemplate template, List<String> keys, int transactions) {
		for (int t = 0; t < transactions; t++) {
			String value = Integer.toString(t);
			template.execute(new SessionCallback<List<Object>>() {

				@Override
				@SuppressWarnings("unchecked")
				public <K, V> List<Object> execute(RedisOperations<K, V> operations) {
					operations.multi();
					for (String key : keys) {
						operations.opsForValue().set((K) key, (V) value);
					}
					return operations.exec();
				}

			});
		}
	}

	private static String summary(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		return String.format(Locale.ROOT, "%.0f (%.0f-%.0f)", sorted[sorted.length / 2], sorted[0],
				sorted[sorted.length - 1]);
	}

	private static String ratio(double[] values, double[] baseline) {
		double[] a = values.clone();
		double[] b = baseline.clone();
		Arrays.sort(a);
		Arrays.sort(b);
		return String.format(Locale.ROOT, "%.2f× (%.2f-%.2f)", a[a.length / 2] / b[b.length / 2],
				a[0] / b[b.length - 1], a[a.length - 1] / b[0]);
	}

}

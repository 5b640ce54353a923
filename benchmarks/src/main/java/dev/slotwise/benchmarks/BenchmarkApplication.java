package dev.slotwise.benchmarks;

import java.util.ArrayList;
import java.util.List;

import dev.slotwise.test.cluster.RedisTestCluster;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The smallest Spring Boot application a benchmark needs: auto-configuration only, as a
 * user's application gets it, started against a test cluster with the properties of one
 * benchmark variant.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BenchmarkApplication {

	/**
	 * Starts an application context.
	 * @param cluster the cluster to use
	 * @param properties extra {@code key=value} properties of the variant
	 * @return the running context; close it in the benchmark's tear-down
	 */
	public static ConfigurableApplicationContext start(RedisTestCluster cluster, String... properties) {
		List<String> all = new ArrayList<>();
		all.add("spring.data.redis.cluster.nodes=" + cluster.nodesProperty());
		all.add("spring.data.redis.client-name=slotwise-benchmark");
		all.add("spring.main.banner-mode=off");
		all.add("logging.level.root=warn");
		all.addAll(List.of(properties));
		return new SpringApplicationBuilder(BenchmarkApplication.class).web(WebApplicationType.NONE)
			.properties(all.toArray(String[]::new))
			.run();
	}

}

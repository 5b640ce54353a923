package dev.slotwise.samples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cache.annotation.EnableCaching;

/**
 * A product catalogue on Redis Cluster: an ordinary Spring Boot web application that
 * injects a {@code StringRedisTemplate}, with Slotwise on the class path, Actuator's
 * health and Prometheus endpoints, and nothing configured beyond {@code application.yml}.
 * Caching is on for the {@code prices} cache of {@link WorkloadController}: Spring Boot's
 * {@code RedisCacheManager}, which Slotwise clears with its cluster-wide scan.
 */
@SpringBootApplication
@EnableCaching
@EnableConfigurationProperties(SampleProperties.class)
public class SlotwiseSampleApplication {

	/**
	 * Starts the sample.
	 * @param args Spring Boot arguments, e.g.
	 * {@code --spring.data.redis.cluster.nodes=...}
	 */
	public static void main(String[] args) {
		SpringApplication.run(SlotwiseSampleApplication.class, args);
	}

}

package dev.slotwise.samples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * A product catalogue on Redis Cluster: an ordinary Spring Boot web application that injects a
 * {@code StringRedisTemplate}, with Slotwise on the class path, Actuator's health and Prometheus endpoints, and
 * nothing configured beyond {@code application.yml}.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class SlotwiseSampleApplication {

	/**
	 * Starts the sample.
	 * @param args Spring Boot arguments, e.g. {@code --spring.data.redis.cluster.nodes=...}
	 */
	public static void main(String[] args) {
		SpringApplication.run(SlotwiseSampleApplication.class, args);
	}

}

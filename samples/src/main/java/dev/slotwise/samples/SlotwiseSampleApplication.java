package dev.slotwise.samples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * Writes a catalogue of products to the cluster, reads it back with one {@code multiGet}, and reports what the
 * servers saw. Run it with {@code src/demo.sh}, which starts a local cluster first.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class SlotwiseSampleApplication {

	/**
	 * Starts the sample; it exits when the report is printed.
	 * @param args Spring Boot arguments, e.g. {@code --spring.data.redis.cluster.nodes=...}
	 */
	public static void main(String[] args) {
		System.exit(SpringApplication.exit(SpringApplication.run(SlotwiseSampleApplication.class, args)));
	}

}

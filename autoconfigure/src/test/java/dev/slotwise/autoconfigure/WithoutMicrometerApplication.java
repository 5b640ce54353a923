package dev.slotwise.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * An application with only Spring Data Redis and Slotwise, run by
 * {@link WithoutMicrometerIntegrationTests} in a JVM of its own whose class path has no
 * Micrometer and no Actuator, as a plain {@code spring-boot-starter-data-redis}
 * application has. It writes and reads keys across slots, prints {@code OK} and exits 0;
 * any failure exits non-zero with its stack trace.
 * <p>
 * Arguments: the cluster nodes ({@code host:port,...}) and the client type ({@code jedis}
 * or {@code lettuce}).
 */
public final class WithoutMicrometerApplication {

	private WithoutMicrometerApplication() {
	}

	public static void main(String[] args) {
		try {
			Class.forName("io.micrometer.core.instrument.MeterRegistry");
			throw new IllegalStateException("Micrometer is on the class path: this run would prove nothing");
		}
		catch (ClassNotFoundException expected) {
			// The point of the run.
		}
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties("spring.data.redis.cluster.nodes=" + args[0], "spring.data.redis.client-type=" + args[1],
					"spring.main.banner-mode=off")
			.run()) {
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			Map<String, String> entries = new LinkedHashMap<>();
			for (int i = 0; i < 50; i++) {
				entries.put("no-micrometer:" + i, "v" + i);
			}
			template.opsForValue().multiSet(entries);
			List<String> values = template.opsForValue().multiGet(new ArrayList<>(entries.keySet()));
			if (!new ArrayList<>(entries.values()).equals(values)) {
				throw new IllegalStateException("Read " + values + " after writing " + entries.values());
			}
		}
		System.out.println("OK");
	}

	@Configuration(proxyBeanMethods = false)
	@ImportAutoConfiguration({ SlotwiseAutoConfiguration.class, DataRedisAutoConfiguration.class })
	static class Application {

	}

}

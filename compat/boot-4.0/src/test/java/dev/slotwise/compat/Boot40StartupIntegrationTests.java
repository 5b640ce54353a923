package dev.slotwise.compat;

import java.util.List;
import java.util.Map;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An application with Slotwise on the class path, started on Spring Boot 4.0.x's jars
 * (Spring Data Redis 4.0, Jedis 7.0, Lettuce 6.8), which Slotwise is not built for: it
 * starts on Spring Boot's own connection factory, serves cross-slot commands through
 * plain Spring Data Redis, and the log has exactly one WARN naming the versions — no
 * {@code NoClassDefFoundError} or {@code NoSuchMethodError}.
 */
@WithRedisCluster
@ExtendWith(OutputCaptureExtension.class)
class Boot40StartupIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void startsWithoutSlotwiseAndWarnsOnce(String client, RedisTestCluster cluster, CapturedOutput output) {
		assertThat(SpringBootVersion.getVersion()).as("the Spring Boot this module runs on").startsWith("4.0.");
		try (ConfigurableApplicationContext context = new SpringApplicationBuilder(Application.class)
			.web(WebApplicationType.NONE)
			.properties(Map.of("spring.data.redis.client-type", client, "spring.data.redis.cluster.nodes",
					cluster.nodesProperty()))
			.run()) {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			assertThat(factory).isExactlyInstanceOf(
					client.equals("jedis") ? JedisConnectionFactory.class : LettuceConnectionFactory.class);
			assertThat(context.getBeanNamesForType(Object.class))
				.noneMatch((name) -> name.toLowerCase().contains("slotwise"));
			StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
			List<String> keys = List.of("compat:a", "compat:b", "compat:c", "compat:d");
			keys.forEach((key) -> template.opsForValue().set(key, key));
			assertThat(template.opsForValue().multiGet(keys)).isEqualTo(keys);
		}
		List<String> warnings = output.getOut().lines().filter((line) -> line.contains("Slotwise needs")).toList();
		assertThat(warnings).singleElement()
			.asString()
			.contains("WARN", "Spring Boot " + SpringBootVersion.getVersion(), "Spring Data Redis 4.0.",
					"plain Spring Data Redis");
		assertThat(output.getOut() + output.getErr()).doesNotContain("NoSuchMethodError")
			.doesNotContain("NoClassDefFoundError");
	}

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

	}

}

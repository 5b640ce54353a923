package dev.slotwise.samples;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;

import dev.slotwise.test.cluster.RedisTestCluster;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application started as a user starts it (its own {@code application.yml}, a
 * random HTTP port), pointed at a test cluster, and an HTTP client for it.
 */
final class RunningSample implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final HttpClient http = HttpClient.newHttpClient();

	private final String base;

	private RunningSample(ConfigurableApplicationContext context) {
		this.context = context;
		this.base = "http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port");
	}

	static RunningSample start(RedisTestCluster cluster, String client, String... extraArgs) {
		List<String> args = new ArrayList<>(
				List.of("--server.port=0", "--spring.data.redis.cluster.nodes=" + cluster.nodesProperty(),
						"--spring.data.redis.client-type=" + client));
		args.addAll(List.of(extraArgs));
		return new RunningSample(
				new SpringApplicationBuilder(SlotwiseSampleApplication.class).run(args.toArray(new String[0])));
	}

	ConfigurableApplicationContext context() {
		return this.context;
	}

	String get(String path) throws IOException, InterruptedException {
		return send(HttpRequest.newBuilder(URI.create(this.base + path)).GET().build());
	}

	String post(String path) throws IOException, InterruptedException {
		return send(
				HttpRequest.newBuilder(URI.create(this.base + path)).POST(HttpRequest.BodyPublishers.noBody()).build());
	}

	private String send(HttpRequest request) throws IOException, InterruptedException {
		HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s %s: %s", request.method(), request.uri(), response.body())
			.isEqualTo(200);
		return response.body();
	}

	@Override
	public void close() {
		this.context.close();
	}

}

package dev.slotwise.internal.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.pipeline.PipelineObserver;
import dev.slotwise.internal.routing.RedirectKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

/**
 * Micrometer meters of cluster pipelines: a {@link MeterBinder} that Spring Boot binds to
 * the application's registries, handing out one {@link PipelineObserver} per client that
 * records in all of them:
 * <ul>
 * <li>{@value #PIPELINES} (timer): pipelines closed; tags {@code client} and
 * {@code outcome} ({@code success}, {@code command_error}, {@code failure});</li>
 * <li>{@value #COMMANDS} (distribution summary): commands per pipeline;</li>
 * <li>{@value #NODES} (distribution summary): masters per pipeline;</li>
 * <li>{@value #REDIRECTS} (counter): queued commands redirected; tag {@code type}
 * ({@code moved}, {@code ask}, {@code tryagain}).</li>
 * </ul>
 * No gauges, so no counter shares a base name with a gauge in Prometheus. Kept here
 * rather than in the {@code metrics} package until that package's owner takes it over.
 */
public final class PipelineMeters extends RegistryMeterBinder<PipelineObserver> implements PipelineObserver.Source {

	/** Name of the pipeline timer. */
	public static final String PIPELINES = "slotwise.pipeline.pipelines";

	/** Name of the commands-per-pipeline distribution summary. */
	public static final String COMMANDS = "slotwise.pipeline.commands";

	/** Name of the nodes-per-pipeline distribution summary. */
	public static final String NODES = "slotwise.pipeline.nodes";

	/** Name of the redirect counter. */
	public static final String REDIRECTS = "slotwise.pipeline.redirects";

	/**
	 * Creates the meters, bound to no registry yet.
	 */
	public PipelineMeters() {
		super(PipelineObserver.Composite::new, ClientMeters::new);
	}

	/**
	 * One client's meters in one registry.
	 */
	private static final class ClientMeters implements PipelineObserver {

		private final Map<String, Timer> pipelines;

		private final DistributionSummary commands;

		private final DistributionSummary nodes;

		private final Map<RedirectKind, Counter> redirects = new EnumMap<>(RedirectKind.class);

		ClientMeters(MeterRegistry registry, String client) {
			Tags tags = Tags.of("client", client);
			this.pipelines = Map.of(PipelineObserver.SUCCESS, timer(registry, tags, PipelineObserver.SUCCESS),
					PipelineObserver.COMMAND_ERROR, timer(registry, tags, PipelineObserver.COMMAND_ERROR),
					PipelineObserver.FAILURE, timer(registry, tags, PipelineObserver.FAILURE));
			this.commands = DistributionSummary.builder(COMMANDS)
				.description("Commands per cluster pipeline")
				.baseUnit("commands")
				.tags(tags)
				.register(registry);
			this.nodes = DistributionSummary.builder(NODES)
				.description("Masters per cluster pipeline")
				.baseUnit("nodes")
				.tags(tags)
				.register(registry);
			for (RedirectKind kind : RedirectKind.values()) {
				this.redirects.put(kind,
						Counter.builder(REDIRECTS)
							.description("Pipelined commands redirected by a server")
							.tags(tags.and("type", kind.tag()))
							.register(registry));
			}
		}

		private static Timer timer(MeterRegistry registry, Tags tags, String outcome) {
			return Timer.builder(PIPELINES)
				.description("Cluster pipelines closed")
				.tags(tags.and("outcome", outcome))
				.register(registry);
		}

		@Override
		public void closed(int commands, int nodes, String outcome, long durationNanos) {
			Timer timer = this.pipelines.get(outcome);
			if (timer != null) {
				timer.record(durationNanos, TimeUnit.NANOSECONDS);
			}
			this.commands.record(commands);
			this.nodes.record(nodes);
		}

		@Override
		public void redirected(RedirectKind kind) {
			this.redirects.get(kind).increment();
		}

	}

}

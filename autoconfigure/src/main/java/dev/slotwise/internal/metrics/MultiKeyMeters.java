package dev.slotwise.internal.metrics;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.internal.routing.RedirectKind;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters for the multi-key engine, one {@link MultiKeyObserver} per client:
 * <ul>
 * <li>{@value #CALLS} (timer with a percentile histogram): cross-slot calls run by the
 * engine; tags {@code command} ({@code mget}, {@code mset}, {@code del}, {@code unlink},
 * {@code exists}), {@code client} and {@code outcome} ({@code success} or
 * {@code failure});</li>
 * <li>{@value #KEYS} (distribution summary): keys per cross-slot call; tags
 * {@code command} and {@code client};</li>
 * <li>{@value #REDIRECTS} (counter): commands the servers redirected; tags {@code type}
 * ({@code moved}, {@code ask}, {@code tryagain}) and {@code client}.</li>
 * </ul>
 * A {@link MeterBinder}: Spring Boot binds it to the application's registry once every
 * bean exists, which may be after the connection factory asked for its
 * {@link #forClient(String) observer}; calls before that are not recorded. The meters of
 * a client are registered up front, so that a call costs an array lookup and two record
 * operations, never a registry lookup.
 */
public final class MultiKeyMeters extends RegistryMeterBinder<MultiKeyObserver> implements MultiKeyObserver.Source {

	/** Name of the call timer. */
	public static final String CALLS = "slotwise.multikey.calls";

	/** Name of the keys-per-call distribution summary. */
	public static final String KEYS = "slotwise.multikey.keys";

	/** Name of the redirect counter. */
	public static final String REDIRECTS = "slotwise.multikey.redirects";

	/**
	 * Creates the meters, bound to no registry yet.
	 */
	public MultiKeyMeters() {
		super(MultiKeyObserver.Composite::new, ClientMeters::new);
	}

	/**
	 * One client's meters in one registry.
	 */
	private static final class ClientMeters implements MultiKeyObserver {

		private final Map<MultiKeyCommand, Timer> successes = new EnumMap<>(MultiKeyCommand.class);

		private final Map<MultiKeyCommand, Timer> failures = new EnumMap<>(MultiKeyCommand.class);

		private final Map<MultiKeyCommand, DistributionSummary> keys = new EnumMap<>(MultiKeyCommand.class);

		private final Map<RedirectKind, Counter> redirects = new EnumMap<>(RedirectKind.class);

		ClientMeters(MeterRegistry registry, String client) {
			Tags tags = Tags.of("client", client);
			for (MultiKeyCommand command : MultiKeyCommand.values()) {
				this.successes.put(command, timer(registry, tags, command.tag(), "success"));
				this.failures.put(command, timer(registry, tags, command.tag(), "failure"));
				this.keys.put(command,
						DistributionSummary.builder(KEYS)
							.description("Keys per cross-slot multi-key call")
							.baseUnit("keys")
							.tags(tags)
							.tag("command", command.tag())
							.register(registry));
			}
			for (RedirectKind kind : RedirectKind.values()) {
				this.redirects.put(kind, redirects(registry, tags, kind.tag()));
			}
		}

		private static Timer timer(MeterRegistry registry, Tags tags, String command, String outcome) {
			// The histogram feeds p50/p99 in Prometheus (histogram_quantile); bounded to
			// the range a multi-key call lives in, so that each timer has a few dozen
			// buckets rather than hundreds.
			return Timer.builder(CALLS)
				.description("Cross-slot multi-key calls run by the Slotwise engine")
				.tags(tags)
				.tag("command", command)
				.tag("outcome", outcome)
				.publishPercentileHistogram()
				.minimumExpectedValue(Duration.ofNanos(50_000))
				.maximumExpectedValue(Duration.ofSeconds(30))
				.register(registry);
		}

		private static Counter redirects(MeterRegistry registry, Tags tags, String type) {
			return Counter.builder(REDIRECTS)
				.description("Multi-key commands redirected by the server and sent again")
				.tags(tags)
				.tag("type", type)
				.register(registry);
		}

		@Override
		public void called(MultiKeyCommand command, int keys, boolean success, long durationNanos) {
			(success ? this.successes : this.failures).get(command).record(durationNanos, TimeUnit.NANOSECONDS);
			this.keys.get(command).record(keys);
		}

		@Override
		public void redirected(RedirectKind kind) {
			this.redirects.get(kind).increment();
		}

	}

}

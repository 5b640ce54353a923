package dev.slotwise.metrics;

import java.util.concurrent.TimeUnit;

import dev.slotwise.multikey.MultiKeyObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;

import org.springframework.util.Assert;

/**
 * Micrometer meters for one client's multi-key engine, fed as a {@link MultiKeyObserver}:
 * <ul>
 * <li>{@value #CALLS} (timer): cross-slot calls run by the engine; tags {@code command} ({@code mget}, {@code mset},
 * {@code del}, {@code unlink}, {@code exists}), {@code client} and {@code outcome} ({@code success} or
 * {@code failure});</li>
 * <li>{@value #KEYS} (distribution summary): keys per cross-slot call; tags {@code command} and
 * {@code client};</li>
 * <li>{@value #REDIRECTS} (counter): commands the servers redirected; tags {@code type} ({@code moved}, {@code ask},
 * {@code tryagain}) and {@code client}.</li>
 * </ul>
 * Every meter is registered up front, so that a call costs an array lookup and two record operations, never a
 * registry lookup.
 */
public final class MultiKeyMeters implements MultiKeyObserver {

	/** Name of the call timer. */
	public static final String CALLS = "slotwise.multikey.calls";

	/** Name of the keys-per-call distribution summary. */
	public static final String KEYS = "slotwise.multikey.keys";

	/** Name of the redirect counter. */
	public static final String REDIRECTS = "slotwise.multikey.redirects";

	private static final String[] COMMANDS = { "mget", "mset", "del", "unlink", "exists" };

	private final Timer[] successes = new Timer[COMMANDS.length];

	private final Timer[] failures = new Timer[COMMANDS.length];

	private final DistributionSummary[] keys = new DistributionSummary[COMMANDS.length];

	private final Counter moved;

	private final Counter ask;

	private final Counter tryAgain;

	/**
	 * Registers the meters.
	 * @param registry where the meters go
	 * @param client the client tag, {@code jedis} or {@code lettuce}
	 */
	public MultiKeyMeters(MeterRegistry registry, String client) {
		Assert.notNull(registry, "'registry' must not be null");
		Assert.hasText(client, "'client' must not be empty");
		Tags tags = Tags.of("client", client);
		for (int i = 0; i < COMMANDS.length; i++) {
			this.successes[i] = timer(registry, tags, COMMANDS[i], "success");
			this.failures[i] = timer(registry, tags, COMMANDS[i], "failure");
			this.keys[i] = DistributionSummary.builder(KEYS)
				.description("Keys per cross-slot multi-key call")
				.baseUnit("keys")
				.tags(tags)
				.tag("command", COMMANDS[i])
				.register(registry);
		}
		this.moved = redirects(registry, tags, MOVED);
		this.ask = redirects(registry, tags, ASK);
		this.tryAgain = redirects(registry, tags, TRYAGAIN);
	}

	private static Timer timer(MeterRegistry registry, Tags tags, String command, String outcome) {
		return Timer.builder(CALLS)
			.description("Cross-slot multi-key calls run by the Slotwise engine")
			.tags(tags)
			.tag("command", command)
			.tag("outcome", outcome)
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
	public void called(String command, int keys, boolean success, long durationNanos) {
		int index = index(command);
		if (index < 0) {
			return;
		}
		(success ? this.successes : this.failures)[index].record(durationNanos, TimeUnit.NANOSECONDS);
		this.keys[index].record(keys);
	}

	@Override
	public void redirected(String type) {
		switch (type) {
			case MOVED -> this.moved.increment();
			case ASK -> this.ask.increment();
			case TRYAGAIN -> this.tryAgain.increment();
			default -> {
				// An unknown type is ignored rather than thrown: observers must not fail a call.
			}
		}
	}

	private static int index(String command) {
		return switch (command) {
			case "mget" -> 0;
			case "mset" -> 1;
			case "del" -> 2;
			case "unlink" -> 3;
			case "exists" -> 4;
			default -> -1;
		};
	}

}

package dev.slotwise.internal.health;

import dev.slotwise.internal.pubsub.PubSubRuntime;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.util.Assert;

/**
 * Health of pub/sub across the cluster, from what the subscriptions hold (no command is
 * sent): up while the runtime runs, with the number of open subscriptions and the
 * channels and patterns subscribed on each node as details.
 */
public final class PubSubHealthIndicator extends AbstractHealthIndicator {

	private final PubSubRuntime runtime;

	/**
	 * Creates the indicator.
	 * @param runtime the subscriptions' runtime
	 */
	public PubSubHealthIndicator(PubSubRuntime runtime) {
		super("Redis pub/sub health check failed");
		Assert.notNull(runtime, "'runtime' must not be null");
		this.runtime = runtime;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		if (this.runtime.isClosed()) {
			builder.down().withDetail("reason", "closed");
			return;
		}
		builder.up()
			.withDetail("subscriptions", this.runtime.openSubscriptions())
			.withDetail("subscriptionsPerNode", this.runtime.subscriptionsPerNode());
	}

}

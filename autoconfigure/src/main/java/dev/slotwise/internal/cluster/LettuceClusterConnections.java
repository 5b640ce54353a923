package dev.slotwise.internal.cluster;

import java.time.Duration;
import java.util.List;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactoryCustomizer;
import dev.slotwise.internal.cluster.ConnectionParts.Started;
import dev.slotwise.internal.multikey.MultiKeySettings;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Makes a {@link SlotwiseLettuceConnectionFactory} hand out
 * {@link SlotwiseLettuceClusterConnection}s composed of the features the application left
 * on, and lets each feature set the factory's reactive hooks. With no feature on, Spring
 * Data Redis's own connections stay.
 */
public final class LettuceClusterConnections implements SlotwiseLettuceConnectionFactoryCustomizer {

	/** How the composition names itself to the connection factory's hooks. */
	static final String CONTRIBUTOR = "slotwise-cluster-connections";

	private static final Log logger = LogFactory.getLog(LettuceClusterConnections.class);

	private final List<LettuceClusterFeature> features;

	private final MultiKeySettings settings;

	private final Duration minRefreshInterval;

	/**
	 * Creates the composition.
	 * @param features the features, in order (the first one's command layer outermost)
	 * @param settings the limits of node batches
	 * @param minRefreshInterval the least time between two partition reloads the features
	 * ask for ({@code slotwise.topology.min-refresh-interval})
	 */
	public LettuceClusterConnections(List<LettuceClusterFeature> features, MultiKeySettings settings,
			Duration minRefreshInterval) {
		if (features == null || settings == null) {
			throw new IllegalArgumentException("'features' and 'settings' must not be null");
		}
		if (minRefreshInterval == null || minRefreshInterval.isNegative()) {
			throw new IllegalArgumentException("'minRefreshInterval' must not be null or negative");
		}
		this.features = List.copyOf(features);
		this.settings = settings;
		this.minRefreshInterval = minRefreshInterval;
	}

	@Override
	public void customize(SlotwiseLettuceConnectionFactory factory) {
		if (this.features.isEmpty()) {
			return;
		}
		logger.debug("Lettuce cluster connections composed of "
				+ this.features.stream().map(LettuceClusterFeature::name).toList());
		LettuceClusterRuntime runtime = new LettuceClusterRuntime(factory, this.settings, this.minRefreshInterval);
		List<Started<LettuceConnectionView>> started = ConnectionParts.start(this.features, LettuceClusterFeature::name,
				(feature) -> feature.start(runtime));
		factory.claimClusterConnections(CONTRIBUTOR,
				(shared, provider, topologyProvider, executor, timeout) -> new SlotwiseLettuceClusterConnection(shared,
						provider, topologyProvider, executor, timeout, runtime, started));
	}

}

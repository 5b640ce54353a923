package dev.slotwise.internal.cluster;

import java.util.function.Supplier;

import dev.slotwise.internal.multikey.jedis.JedisNodeTransport;
import dev.slotwise.internal.multikey.MultiKeySettings;
import dev.slotwise.internal.pipeline.ConnectionPipeline;
import dev.slotwise.internal.pipeline.JedisClusterPipelining;
import dev.slotwise.internal.pipeline.PipelineObserver;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.util.Assert;

/**
 * {@code executePipelined} on a cluster over Jedis, which Spring Data Redis refuses
 * ({@code slotwise.pipeline.enabled}). Over Lettuce, Spring Data Redis pipelines on a
 * cluster itself: the feature has no Lettuce part.
 */
public final class PipelineFeature {

	/** The feature's name. */
	public static final String NAME = "pipeline";

	private PipelineFeature() {
	}

	/**
	 * Returns the feature over Jedis: node batches on the shared node transport and
	 * executor, the pipeline's cross-slot multi-key commands on the connection's own
	 * commands (the multi-key engine when that feature is on).
	 * @param observers supplies what sees each pipeline, asked when the feature starts
	 * @return the feature
	 */
	public static JedisClusterFeature jedis(Supplier<PipelineObserver> observers) {
		Assert.notNull(observers, "'observers' must not be null");
		return JedisClusterFeature.of(NAME, (runtime) -> {
			PipelineObserver observer = observers.get();
			JedisNodeTransport transport = runtime.transport();
			MultiKeySettings settings = runtime.settings();
			JedisClusterPipelining pipelining = new JedisClusterPipelining(runtime.client(), transport::router,
					transport::invalidateTopology, runtime.executor().executor(), settings.maxCommandsPerPipeline(),
					settings.maxRedirects(), observer);
			return (connection) -> {
				ConnectionPipeline pipeline = pipelining.forConnection((group) -> (group == RedisKeyCommands.class)
						? connection.directKeys() : connection.directStrings());
				return new ConnectionPart() {

					@Override
					public ConnectionPipeline pipeline() {
						return pipeline;
					}

				};
			};
		});
	}

}

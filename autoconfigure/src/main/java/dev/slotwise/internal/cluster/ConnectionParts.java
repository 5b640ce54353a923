package dev.slotwise.internal.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.slotwise.internal.pipeline.ConnectionPipeline;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import dev.slotwise.internal.transaction.ClusterTransaction;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisStringCommands;

/**
 * The parts the features added to one connection, composed: the command layers in feature order (the first
 * feature's outermost), and the connection modes, each provided by one feature at most.
 */
final class ConnectionParts {

	private static final Log logger = LogFactory.getLog(ConnectionParts.class);

	private final List<ConnectionPart> parts;

	private final @Nullable ConnectionPipeline pipeline;

	private final @Nullable ConnectionSubscription subscription;

	private final @Nullable ClusterTransaction transaction;

	private @Nullable RedisScriptingCommands scripting;

	private @Nullable RedisStringCommands strings;

	private @Nullable RedisKeyCommands keys;

	private ConnectionParts(List<ConnectionPart> parts, @Nullable ConnectionPipeline pipeline,
			@Nullable ConnectionSubscription subscription, @Nullable ClusterTransaction transaction) {
		this.parts = parts;
		this.pipeline = pipeline;
		this.subscription = subscription;
		this.transaction = transaction;
	}

	/**
	 * Asks every feature for its part of a new connection.
	 * @param features the started features, in order
	 * @param connection the connection
	 * @return the composed parts
	 * @throws IllegalStateException when two features provide the same connection mode
	 */
	static <V extends ConnectionView> ConnectionParts connect(List<Started<V>> features, V connection) {
		List<ConnectionPart> parts = new ArrayList<>(features.size());
		Mode<ConnectionPipeline> pipeline = new Mode<>("the pipeline");
		Mode<ConnectionSubscription> subscription = new Mode<>("the subscriptions");
		Mode<ClusterTransaction> transaction = new Mode<>("the transactions");
		for (Started<V> feature : features) {
			ConnectionPart part = feature.feature().connect(connection);
			parts.add(part);
			pipeline.offer(feature.name(), part.pipeline());
			subscription.offer(feature.name(), part.subscription());
			transaction.offer(feature.name(), part.transaction());
		}
		return new ConnectionParts(List.copyOf(parts), pipeline.value, subscription.value, transaction.value);
	}

	/**
	 * Returns the string commands with every feature's layer in front, created once per connection.
	 * @param plain supplies Spring Data Redis's own string commands
	 * @return the composed commands
	 */
	RedisStringCommands strings(Supplier<RedisStringCommands> plain) {
		RedisStringCommands strings = this.strings;
		if (strings == null) {
			strings = layered(plain.get(), ConnectionPart::strings);
			this.strings = strings;
		}
		return strings;
	}

	/**
	 * Returns the key commands with every feature's layer in front, created once per connection.
	 * @param plain supplies Spring Data Redis's own key commands
	 * @return the composed commands
	 */
	RedisKeyCommands keys(Supplier<RedisKeyCommands> plain) {
		RedisKeyCommands keys = this.keys;
		if (keys == null) {
			keys = layered(plain.get(), ConnectionPart::keys);
			this.keys = keys;
		}
		return keys;
	}

	/**
	 * Returns the scripting commands with every feature's layer in front, created once per connection.
	 * @param plain supplies Spring Data Redis's own scripting commands
	 * @return the composed commands
	 */
	RedisScriptingCommands scripting(Supplier<RedisScriptingCommands> plain) {
		RedisScriptingCommands scripting = this.scripting;
		if (scripting == null) {
			scripting = layered(plain.get(), ConnectionPart::scripting);
			this.scripting = scripting;
		}
		return scripting;
	}

	/**
	 * Returns the transaction state, when a feature provides it.
	 * @return the transaction state, or {@code null} to leave transactions to Spring Data Redis
	 */
	@Nullable ClusterTransaction transaction() {
		return this.transaction;
	}

	/**
	 * Returns whether a transaction queues commands, so that the connection hands out its command groups.
	 */
	boolean isQueueing() {
		ClusterTransaction transaction = this.transaction;
		return transaction != null && transaction.isQueueing();
	}

	private <T> T layered(T plain, Layer<T> layer) {
		T commands = plain;
		for (int i = this.parts.size() - 1; i >= 0; i--) {
			commands = layer.wrap(this.parts.get(i), commands);
		}
		return commands;
	}

	@Nullable ConnectionPipeline pipeline() {
		return this.pipeline;
	}

	@Nullable ConnectionSubscription subscription() {
		return this.subscription;
	}

	/**
	 * Subscribes through the feature that provides the connection's subscriptions.
	 * @return {@code false} when no feature provides them, for Spring Data Redis to subscribe
	 */
	boolean subscribe(MessageListener listener, byte[][] channels, byte[][] patterns, boolean pipelinedOrQueueing) {
		ConnectionSubscription subscription = this.subscription;
		if (subscription == null) {
			return false;
		}
		subscription.subscribe(listener, channels, patterns, pipelinedOrQueueing);
		return true;
	}

	/**
	 * Closes every part; one part failing to close does not keep the others open.
	 */
	void close() {
		ConnectionSubscription subscription = this.subscription;
		if (subscription != null) {
			subscription.close();
		}
		for (ConnectionPart part : this.parts) {
			try {
				part.close();
			}
			catch (RuntimeException ex) {
				logger.debug("Could not close a part of a Slotwise cluster connection", ex);
			}
		}
	}

	/**
	 * A feature started for a connection factory, with its name.
	 *
	 * @param <V> what the feature sees of a connection
	 * @param name the feature's name, for messages
	 * @param feature the started feature
	 */
	record Started<V extends ConnectionView>(String name, StartedFeature<V> feature) {
	}

	@FunctionalInterface
	private interface Layer<T> {

		T wrap(ConnectionPart part, T next);

	}

	/**
	 * A connection mode that one feature at most may provide: a connection cannot pipeline two ways.
	 */
	private static final class Mode<T> {

		private final String description;

		private @Nullable T value;

		private @Nullable String provider;

		Mode(String description) {
			this.description = description;
		}

		void offer(String feature, @Nullable T candidate) {
			if (candidate == null) {
				return;
			}
			if (this.value != null) {
				throw new IllegalStateException("Features '" + this.provider + "' and '" + feature + "' both provide "
						+ this.description + " of a Slotwise cluster connection; one connection has one");
			}
			this.value = candidate;
			this.provider = feature;
		}

	}

	static <V extends ConnectionView, F> List<Started<V>> start(List<F> features, Function<F, String> name,
			Function<F, StartedFeature<V>> start) {
		List<Started<V>> started = new ArrayList<>(features.size());
		for (F feature : features) {
			started.add(new Started<>(name.apply(feature), start.apply(feature)));
		}
		return List.copyOf(started);
	}

}

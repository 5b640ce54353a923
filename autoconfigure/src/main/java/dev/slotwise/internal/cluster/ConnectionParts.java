package dev.slotwise.internal.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import dev.slotwise.internal.pipeline.ConnectionPipeline;
import dev.slotwise.internal.pubsub.ConnectionSubscription;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import dev.slotwise.internal.transaction.ClusterTransaction;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.Subscription;

/**
 * The parts the features added to one connection, composed: the command layers in feature
 * order (the first feature's outermost), and the connection modes, each provided by one
 * feature at most. Both Slotwise cluster connections route through it, so that their
 * overrides stay one line each: every method that takes Spring Data Redis's own behaviour
 * ({@code plain}) falls back to it when no feature provides the mode.
 */
final class ConnectionParts {

	private static final Log logger = LogFactory.getLog(ConnectionParts.class);

	private static final byte[][] NO_NAMES = new byte[0][];

	private final List<ConnectionPart> parts;

	private final @Nullable ConnectionPipeline pipeline;

	private final @Nullable ConnectionSubscription subscription;

	private final @Nullable ClusterTransaction transaction;

	private final Layered<RedisScriptingCommands> scripting = new Layered<>(ConnectionPart::scripting);

	private final Layered<RedisStringCommands> strings = new Layered<>(ConnectionPart::strings);

	private final Layered<RedisKeyCommands> keys = new Layered<>(ConnectionPart::keys);

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
	 * Returns the string commands with every feature's layer in front, created once per
	 * connection.
	 * @param plain supplies Spring Data Redis's own string commands
	 * @return the composed commands
	 */
	RedisStringCommands strings(Supplier<RedisStringCommands> plain) {
		return this.strings.get(plain);
	}

	/**
	 * Returns the key commands with every feature's layer in front, created once per
	 * connection.
	 * @param plain supplies Spring Data Redis's own key commands
	 * @return the composed commands
	 */
	RedisKeyCommands keys(Supplier<RedisKeyCommands> plain) {
		return this.keys.get(plain);
	}

	/**
	 * Returns the scripting commands with every feature's layer in front, created once
	 * per connection.
	 * @param plain supplies Spring Data Redis's own scripting commands
	 * @return the composed commands
	 */
	RedisScriptingCommands scripting(Supplier<RedisScriptingCommands> plain) {
		return this.scripting.get(plain);
	}

	private boolean isTransactionQueueing() {
		ClusterTransaction transaction = this.transaction;
		return transaction != null && transaction.isQueueing();
	}

	private boolean isPipelineOpen() {
		ConnectionPipeline pipeline = this.pipeline;
		return pipeline != null && pipeline.isOpen();
	}

	/**
	 * Returns a command group: the open pipeline's, else the queueing transaction's
	 * (whose groups route each call to the slot's master), else the connection's own.
	 * @param group the command group's interface
	 * @param direct supplies the connection's own command group
	 * @return the command group to use
	 */
	<T> T commands(Class<T> group, Supplier<T> direct) {
		ConnectionPipeline pipeline = this.pipeline;
		if (pipeline != null && pipeline.isOpen()) {
			return pipeline.commands(group);
		}
		ClusterTransaction transaction = this.transaction;
		return (transaction != null && transaction.isQueueing()) ? transaction.commands(group) : direct.get();
	}

	/**
	 * Returns the string commands as {@link #commands} does, the connection's own with
	 * every feature's layer in front.
	 * @param plain supplies Spring Data Redis's own string commands
	 * @return the string commands to use
	 */
	RedisStringCommands stringCommands(Supplier<RedisStringCommands> plain) {
		return commands(RedisStringCommands.class, () -> strings(plain));
	}

	/**
	 * Returns the key commands as {@link #commands} does, the connection's own with every
	 * feature's layer in front.
	 * @param plain supplies Spring Data Redis's own key commands
	 * @return the key commands to use
	 */
	RedisKeyCommands keyCommands(Supplier<RedisKeyCommands> plain) {
		return commands(RedisKeyCommands.class, () -> keys(plain));
	}

	/**
	 * Returns the scripting commands as {@link #commands} does, the connection's own with
	 * every feature's layer in front.
	 * @param plain supplies Spring Data Redis's own scripting commands
	 * @return the scripting commands to use
	 */
	RedisScriptingCommands scriptingCommands(Supplier<RedisScriptingCommands> plain) {
		return commands(RedisScriptingCommands.class, () -> scripting(plain));
	}

	/**
	 * Runs a raw command, refused while a transaction queues or the pipeline is open: it
	 * would run at once, outside the transaction or the pipeline's results.
	 * @param command the command
	 * @param args its arguments
	 * @param plain Spring Data Redis's {@code execute}
	 * @return the command's reply
	 */
	Object execute(String command, byte[][] args, BiFunction<String, byte[][], Object> plain) {
		if (isTransactionQueueing()) {
			throw new InvalidDataAccessApiUsageException("execute(\"" + command
					+ "\", …) cannot be part of a transaction on a Redis Cluster: use the command groups");
		}
		if (isPipelineOpen()) {
			throw new InvalidDataAccessApiUsageException(
					"execute(\"" + command + "\", …) cannot be pipelined on a Redis Cluster: use the command groups");
		}
		return plain.apply(command, args);
	}

	/**
	 * Starts a transaction through the feature that provides them.
	 * @param plain Spring Data Redis's {@code multi()}
	 */
	void multi(Runnable plain) {
		runOn(this.transaction, ClusterTransaction::multi, plain);
	}

	/**
	 * Tells whether a transaction queues commands.
	 * @param plain Spring Data Redis's {@code isQueueing()}
	 * @return whether the connection queues commands
	 */
	boolean isQueueing(BooleanSupplier plain) {
		ClusterTransaction transaction = this.transaction;
		return (transaction != null) ? transaction.isQueueing() : plain.getAsBoolean();
	}

	/**
	 * Runs the queued transaction through the feature that provides them.
	 * @param plain Spring Data Redis's {@code exec()}
	 * @return the replies
	 */
	List<Object> exec(Supplier<List<Object>> plain) {
		ClusterTransaction transaction = this.transaction;
		return (transaction != null) ? transaction.exec() : plain.get();
	}

	/**
	 * Discards the queued transaction through the feature that provides them.
	 * @param plain Spring Data Redis's {@code discard()}
	 */
	void discard(Runnable plain) {
		runOn(this.transaction, ClusterTransaction::discard, plain);
	}

	/**
	 * Watches keys through the feature that provides transactions.
	 * @param keys the keys
	 * @param plain Spring Data Redis's {@code watch(byte[]...)}
	 */
	void watch(byte[][] keys, Consumer<byte[][]> plain) {
		runOn(this.transaction, (transaction) -> transaction.watch(keys), () -> plain.accept(keys));
	}

	/**
	 * Forgets the watched keys through the feature that provides transactions.
	 * @param plain Spring Data Redis's {@code unwatch()}
	 */
	void unwatch(Runnable plain) {
		runOn(this.transaction, ClusterTransaction::unwatch, plain);
	}

	/**
	 * Runs an action on the connection mode a feature provides, or Spring Data Redis's
	 * own without one.
	 */
	private static <T> void runOn(@Nullable T mode, Consumer<T> action, Runnable plain) {
		if (mode == null) {
			plain.run();
			return;
		}
		action.accept(mode);
	}

	/**
	 * Opens the pipeline of the feature that provides it.
	 * @param plain Spring Data Redis's {@code openPipeline()}
	 */
	void openPipeline(Runnable plain) {
		runOn(this.pipeline, ConnectionPipeline::open, plain);
	}

	/**
	 * Tells whether the pipeline is open.
	 * @param plain Spring Data Redis's {@code isPipelined()}
	 * @return whether the connection pipelines
	 */
	boolean isPipelined(BooleanSupplier plain) {
		ConnectionPipeline pipeline = this.pipeline;
		return (pipeline != null) ? pipeline.isOpen() : plain.getAsBoolean();
	}

	/**
	 * Closes the pipeline of the feature that provides it.
	 * @param plain Spring Data Redis's {@code closePipeline()}
	 * @return the pipeline's results
	 */
	List<Object> closePipeline(Supplier<List<Object>> plain) {
		ConnectionPipeline pipeline = this.pipeline;
		return (pipeline != null) ? pipeline.close() : plain.get();
	}

	/**
	 * Subscribes channels through the feature that provides the connection's
	 * subscriptions.
	 * @param listener the listener
	 * @param channels the channels
	 * @param pipelinedOrQueueing whether the connection pipelines or queues, which
	 * refuses a subscription
	 * @param plain Spring Data Redis's {@code subscribe}
	 */
	void subscribe(MessageListener listener, byte[][] channels, boolean pipelinedOrQueueing,
			BiConsumer<MessageListener, byte[][]> plain) {
		if (!subscribe(listener, channels, NO_NAMES, pipelinedOrQueueing)) {
			plain.accept(listener, channels);
		}
	}

	/**
	 * Subscribes patterns through the feature that provides the connection's
	 * subscriptions.
	 * @param listener the listener
	 * @param patterns the patterns
	 * @param pipelinedOrQueueing whether the connection pipelines or queues, which
	 * refuses a subscription
	 * @param plain Spring Data Redis's {@code pSubscribe}
	 */
	void pSubscribe(MessageListener listener, byte[][] patterns, boolean pipelinedOrQueueing,
			BiConsumer<MessageListener, byte[][]> plain) {
		if (!subscribe(listener, NO_NAMES, patterns, pipelinedOrQueueing)) {
			plain.accept(listener, patterns);
		}
	}

	private boolean subscribe(MessageListener listener, byte[][] channels, byte[][] patterns,
			boolean pipelinedOrQueueing) {
		ConnectionSubscription subscription = this.subscription;
		if (subscription == null) {
			return false;
		}
		subscription.subscribe(listener, channels, patterns, pipelinedOrQueueing);
		return true;
	}

	/**
	 * Returns the current subscription.
	 * @param plain Spring Data Redis's {@code getSubscription()}
	 * @return the subscription, or {@code null} when there is none
	 */
	@Nullable Subscription getSubscription(Supplier<@Nullable Subscription> plain) {
		ConnectionSubscription subscription = this.subscription;
		return (subscription != null) ? subscription.get() : plain.get();
	}

	/**
	 * Tells whether the connection is subscribed.
	 * @param plain Spring Data Redis's {@code isSubscribed()}
	 * @return whether it is subscribed
	 */
	boolean isSubscribed(BooleanSupplier plain) {
		ConnectionSubscription subscription = this.subscription;
		return (subscription != null) ? subscription.isSubscribed() : plain.getAsBoolean();
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
	 * A command group with every feature's layer in front, created on first use and kept
	 * for the connection.
	 */
	private final class Layered<T> {

		private final Layer<T> layer;

		private @Nullable T commands;

		Layered(Layer<T> layer) {
			this.layer = layer;
		}

		T get(Supplier<T> plain) {
			T commands = this.commands;
			if (commands == null) {
				commands = plain.get();
				for (int i = ConnectionParts.this.parts.size() - 1; i >= 0; i--) {
					commands = this.layer.wrap(ConnectionParts.this.parts.get(i), commands);
				}
				this.commands = commands;
			}
			return commands;
		}

	}

	/**
	 * A connection mode that one feature at most may provide: a connection cannot
	 * pipeline two ways.
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

package dev.slotwise.pubsub;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.Executor;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.data.redis.connection.util.ByteArrayWrapper;
import org.springframework.util.Assert;
import org.springframework.util.ErrorHandler;

/**
 * Dispatches messages of {@link ShardedChannelTopic sharded channels} to
 * {@link MessageListener}s, beside Spring Data Redis's
 * {@code RedisMessageListenerContainer} (which knows channels and patterns only) and in
 * its manner: listeners added and removed at any time, one subscription for all of them,
 * started and stopped with the application context. The subscription is made through a
 * {@link ShardedPubSub}: each channel on the master owning its slot, made again after a
 * slot migration or a failover.
 * <p>
 * Listeners run on the task executor when one is set; otherwise on the thread that
 * received the message (Lettuce's event loop, or a Slotwise reader thread over Jedis),
 * which suits short listeners and keeps the order of each channel's messages. A
 * listener's exception goes to the error handler (by default logged) and stops nothing.
 */
public class ShardedMessageListenerContainer implements SmartLifecycle, DisposableBean {

	private static final Log logger = LogFactory.getLog(ShardedMessageListenerContainer.class);

	private final ShardedPubSub pubSub;

	private final Map<ByteArrayWrapper, Set<MessageListener>> listeners = new LinkedHashMap<>();

	private final MessageListener dispatcher = this::dispatch;

	private volatile @Nullable Executor taskExecutor;

	private volatile ErrorHandler errorHandler = (ex) -> logger.error("A sharded channel listener failed", ex);

	private volatile Map<ByteArrayWrapper, Set<MessageListener>> snapshot = Map.of();

	private @Nullable Subscription subscription;

	private volatile boolean running;

	/**
	 * Creates a container.
	 * @param pubSub subscribes the channels
	 */
	public ShardedMessageListenerContainer(ShardedPubSub pubSub) {
		Assert.notNull(pubSub, "'pubSub' must not be null");
		this.pubSub = pubSub;
	}

	/**
	 * Sets the executor listeners run on.
	 * @param taskExecutor the executor, or {@code null} to run them on the receiving
	 * thread
	 */
	public void setTaskExecutor(@Nullable Executor taskExecutor) {
		this.taskExecutor = taskExecutor;
	}

	/**
	 * Sets what handles a listener's exception.
	 * @param errorHandler the handler
	 */
	public void setErrorHandler(ErrorHandler errorHandler) {
		Assert.notNull(errorHandler, "'errorHandler' must not be null");
		this.errorHandler = errorHandler;
	}

	/**
	 * Adds a listener of sharded channels; subscribes them at once when the container is
	 * running.
	 * @param listener the listener
	 * @param topics the channels
	 */
	public synchronized void addMessageListener(MessageListener listener, ShardedChannelTopic... topics) {
		Assert.notNull(listener, "'listener' must not be null");
		List<byte[]> added = new ArrayList<>();
		for (ShardedChannelTopic topic : topics) {
			ByteArrayWrapper channel = wrap(topic);
			Set<MessageListener> current = this.listeners.get(channel);
			if (current == null) {
				current = new CopyOnWriteArraySet<>();
				this.listeners.put(channel, current);
				added.add(channel.getArray());
			}
			current.add(listener);
		}
		publishSnapshot();
		if (this.running && !added.isEmpty()) {
			Subscription subscription = this.subscription;
			if (subscription != null && subscription.isAlive()) {
				subscription.subscribe(added.toArray(byte[][]::new));
			}
			else {
				subscribeAll();
			}
		}
	}

	/**
	 * Removes a listener from channels, or from all its channels when none are given;
	 * channels left without listeners are unsubscribed.
	 * @param listener the listener
	 * @param topics the channels, or none for all
	 */
	public synchronized void removeMessageListener(MessageListener listener, ShardedChannelTopic... topics) {
		List<ByteArrayWrapper> channels = (topics.length == 0) ? List.copyOf(this.listeners.keySet())
				: Arrays.stream(topics).map(ShardedMessageListenerContainer::wrap).toList();
		List<byte[]> removed = new ArrayList<>();
		for (ByteArrayWrapper channel : channels) {
			Set<MessageListener> current = this.listeners.get(channel);
			if (current != null && current.remove(listener) && current.isEmpty()) {
				this.listeners.remove(channel);
				removed.add(channel.getArray());
			}
		}
		publishSnapshot();
		Subscription subscription = this.subscription;
		if (subscription != null && subscription.isAlive() && !removed.isEmpty()) {
			// The last channel removed ends the subscription, as Spring Data Redis's do.
			subscription.unsubscribe(removed.toArray(byte[][]::new));
		}
	}

	private void publishSnapshot() {
		this.snapshot = Map.copyOf(this.listeners);
	}

	private void subscribeAll() {
		if (this.listeners.isEmpty()) {
			return;
		}
		this.subscription = this.pubSub.subscribe(this.dispatcher,
				this.listeners.keySet().stream().map(ByteArrayWrapper::getArray).toArray(byte[][]::new));
	}

	private void dispatch(Message message, byte @Nullable [] pattern) {
		Set<MessageListener> targets = this.snapshot.get(new ByteArrayWrapper(message.getChannel()));
		if (targets == null) {
			return;
		}
		Executor executor = this.taskExecutor;
		for (MessageListener listener : targets) {
			if (executor != null) {
				executor.execute(() -> invoke(listener, message));
			}
			else {
				invoke(listener, message);
			}
		}
	}

	private void invoke(MessageListener listener, Message message) {
		try {
			listener.onMessage(message, null);
		}
		catch (Throwable ex) {
			this.errorHandler.handleError(ex);
		}
	}

	private static ByteArrayWrapper wrap(ShardedChannelTopic topic) {
		Assert.notNull(topic, "'topics' must not contain null");
		return new ByteArrayWrapper(topic.getTopic().getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Subscribes every channel that has a listener; returns once the masters confirmed
	 * them.
	 */
	@Override
	public synchronized void start() {
		if (this.running) {
			return;
		}
		subscribeAll();
		this.running = true;
	}

	/**
	 * Closes the subscription; listeners stay registered for the next start.
	 */
	@Override
	public synchronized void stop() {
		this.running = false;
		Subscription subscription = this.subscription;
		this.subscription = null;
		if (subscription != null) {
			subscription.close();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public void destroy() {
		stop();
	}

}

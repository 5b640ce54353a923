package dev.slotwise.internal.pubsub;

import java.util.function.Function;

import dev.slotwise.connection.SlotwiseJedisConnectionFactory;
import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.pubsub.ShardedPubSub;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.Subscription;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * The {@link ShardedPubSub} of an application's connection factory, resolved on first
 * use, so that the bean exists whatever the factory is and fails only when used, naming
 * what is missing: sharded pub/sub needs Slotwise's cluster connection factory.
 */
public final class LazyShardedPubSub implements ShardedPubSub {

	private static final boolean JEDIS = ClassUtils.isPresent("redis.clients.jedis.Jedis",
			LazyShardedPubSub.class.getClassLoader());

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisClient",
			LazyShardedPubSub.class.getClassLoader());

	private final RedisConnectionFactory factory;

	private final PubSubRuntime runtime;

	private final Function<String, PubSubObserver> observers;

	private final SingletonSupplier<ShardedPubSub> delegate = SingletonSupplier.of(this::resolve);

	/**
	 * Creates the sharded pub/sub of a connection factory.
	 * @param factory the application's connection factory
	 * @param runtime the threads and settings
	 * @param observers the observer of each client ({@code jedis}, {@code lettuce})
	 */
	public LazyShardedPubSub(RedisConnectionFactory factory, PubSubRuntime runtime,
			Function<String, PubSubObserver> observers) {
		this.factory = factory;
		this.runtime = runtime;
		this.observers = observers;
	}

	@Override
	public long publish(byte[] channel, byte[] message) {
		return delegate().publish(channel, message);
	}

	@Override
	public Subscription subscribe(MessageListener listener, byte[]... channels) {
		return delegate().subscribe(listener, channels);
	}

	private ShardedPubSub delegate() {
		return this.delegate.obtain();
	}

	private ShardedPubSub resolve() {
		if (JEDIS && this.factory instanceof SlotwiseJedisConnectionFactory jedis) {
			return JedisPubSubSupport.sharded(this.runtime, jedis, this.observers.apply("jedis"));
		}
		if (LETTUCE && this.factory instanceof SlotwiseLettuceConnectionFactory lettuce) {
			return LettucePubSubSupport.sharded(this.runtime, lettuce, this.observers.apply("lettuce"));
		}
		throw new IllegalStateException("Sharded pub/sub needs Slotwise's Redis Cluster connection factory "
				+ "(spring.data.redis.cluster.nodes set, slotwise.enabled not false), but the connection factory is a "
				+ this.factory.getClass().getName());
	}

}

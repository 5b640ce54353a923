package dev.slotwise.samples;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

import dev.slotwise.pubsub.ShardedChannelTopic;
import dev.slotwise.pubsub.ShardedMessageListenerContainer;
import dev.slotwise.pubsub.ShardedPubSub;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * What {@code src/dashboards/render.sh} drives beside the {@code multiGet}s, so that
 * every row of the dashboard has data: {@code GET /demo/workload?seconds=S} runs, on one
 * thread for S seconds, the other things an application does with Redis that Slotwise
 * meters, over the catalogue's products (load them first):
 * <ul>
 * <li>a pipeline of {@value #PIPELINED} random product reads
 * ({@code executePipelined});</li>
 * <li>an order's transaction: {@code MULTI}, three commands on its hash-tagged keys,
 * {@code EXEC} (a {@code SessionCallback});</li>
 * <li>every {@value #PUBLISH_EVERY}th round, a message on one of {@value #CHANNELS}
 * sharded channels ({@code SPUBLISH}), heard by the sample's own subscription, made at
 * the first call;</li>
 * <li>every {@value #KEY_WALK_EVERY_MILLIS} ms, a cluster-wide {@code scan} of the
 * products, and a clear of the {@code prices} cache after caching {@value #PRICES} prices
 * in it.</li>
 * </ul>
 * A failed operation is counted and the loop goes on.
 */
@RestController
@RequestMapping("/demo")
class WorkloadController {

	private static final int PIPELINED = 50;

	private static final int ORDERS = 1_000;

	private static final int CHANNELS = 256;

	private static final int PUBLISH_EVERY = 10;

	private static final long KEY_WALK_EVERY_MILLIS = 2_000;

	private static final int PRICES = 200;

	private final ProductCatalogue catalogue;

	private final StringRedisTemplate template;

	private final @Nullable ShardedPubSub pubSub;

	private final @Nullable ShardedMessageListenerContainer container;

	private final Cache prices;

	private final LongAdder received = new LongAdder();

	private boolean subscribed;

	WorkloadController(ProductCatalogue catalogue, StringRedisTemplate template, ObjectProvider<ShardedPubSub> pubSub,
			ObjectProvider<ShardedMessageListenerContainer> container, CacheManager cacheManager) {
		this.catalogue = catalogue;
		this.template = template;
		// Slotwise's beans: absent with slotwise.enabled=false, and the workload then
		// publishes nothing.
		this.pubSub = pubSub.getIfAvailable();
		this.container = container.getIfAvailable();
		this.prices = Objects.requireNonNull(cacheManager.getCache("prices"), "the prices cache");
	}

	@GetMapping("/workload")
	Run workload(@RequestParam(defaultValue = "5") double seconds) {
		subscribeOnce();
		long receivedBefore = this.received.sum();
		long end = System.nanoTime() + (long) (seconds * 1e9);
		long nextKeyWalk = System.nanoTime();
		long pipelines = 0;
		long transactions = 0;
		long published = 0;
		long keysScanned = 0;
		long cacheClears = 0;
		int[] failures = new int[1];
		for (int round = 0; System.nanoTime() < end; round++) {
			pipelines += attempt(failures, this::pipeline);
			transactions += attempt(failures, this::transaction);
			if (round % PUBLISH_EVERY == 0 && this.pubSub != null) {
				published += attempt(failures, this::publish);
			}
			if (System.nanoTime() >= nextKeyWalk) {
				nextKeyWalk = System.nanoTime() + KEY_WALK_EVERY_MILLIS * 1_000_000;
				keysScanned += attempt(failures, this::scanProducts);
				cacheClears += attempt(failures, this::fillAndClearPrices);
			}
		}
		return new Run(pipelines, transactions, published, this.received.sum() - receivedBefore, keysScanned,
				cacheClears, failures[0]);
	}

	// At the first call rather than at start-up: an application that never runs the
	// workload holds no subscription.
	private synchronized void subscribeOnce() {
		if (!this.subscribed && this.container != null) {
			ShardedChannelTopic[] topics = new ShardedChannelTopic[CHANNELS];
			for (int i = 0; i < CHANNELS; i++) {
				topics[i] = ShardedChannelTopic.of(channel(i));
			}
			this.container.addMessageListener((message, pattern) -> this.received.increment(), topics);
			this.subscribed = true;
		}
	}

	private long pipeline() {
		int[] ids = this.catalogue.randomIds(PIPELINED);
		List<Object> products = this.template.executePipelined((RedisCallback<Object>) (connection) -> {
			for (int id : ids) {
				connection.stringCommands().get(ProductCatalogue.key(id).getBytes(StandardCharsets.UTF_8));
			}
			return null;
		});
		return (products.size() == PIPELINED) ? 1 : 0;
	}

	private long transaction() {
		String order = "{order:" + ThreadLocalRandom.current().nextInt(ORDERS) + "}";
		int product = this.catalogue.randomIds(1)[0];
		List<Object> results = this.template.execute(new SessionCallback<List<Object>>() {

			@Override
			@SuppressWarnings("unchecked")
			public <K, V> List<Object> execute(RedisOperations<K, V> operations) {
				RedisOperations<String, String> orders = (RedisOperations<String, String>) operations;
				orders.multi();
				orders.opsForValue().increment(order + ":total", 100 + product % 900);
				orders.opsForList().rightPush(order + ":items", ProductCatalogue.key(product));
				orders.opsForList().trim(order + ":items", -10, -1);
				return orders.exec();
			}

		});
		// Through a RedisTemplate, a transaction whose watched keys changed returns an
		// empty list.
		return (results != null && !results.isEmpty()) ? 1 : 0;
	}

	private long publish() {
		Objects.requireNonNull(this.pubSub)
			.publish(channel(ThreadLocalRandom.current().nextInt(CHANNELS)), "restocked");
		return 1;
	}

	private long scanProducts() {
		long keys = 0;
		ScanOptions products = ScanOptions.scanOptions().match("product:*").count(1000).build();
		try (Cursor<String> cursor = this.template.scan(products)) {
			while (cursor.hasNext()) {
				cursor.next();
				keys++;
			}
		}
		return keys;
	}

	private long fillAndClearPrices() {
		for (int id : this.catalogue.randomIds(PRICES)) {
			this.prices.put(id, 100 + id % 900);
		}
		this.prices.clear();
		return 1;
	}

	private static long attempt(int[] failures, Operation operation) {
		try {
			return operation.run();
		}
		// Spring Data Redis alone (slotwise.enabled=false) refuses pipelines,
		// transactions and scans on a cluster (UnsupportedOperationException or
		// InvalidDataAccessApiUsageException): they count as failures too.
		catch (RuntimeException ex) {
			failures[0]++;
			return 0;
		}
	}

	private static String channel(int i) {
		return "restocks:{" + i + "}";
	}

	/**
	 * One workload operation.
	 */
	@FunctionalInterface
	private interface Operation {

		long run();

	}

	/**
	 * What one run did.
	 *
	 * @param pipelines pipelines that returned every result
	 * @param transactions transactions that committed
	 * @param published messages published
	 * @param received messages the subscription received during the run
	 * @param keysScanned keys the scans returned
	 * @param cacheClears cache clears done
	 * @param failures operations that failed
	 */
	record Run(long pipelines, long transactions, long published, long received, long keysScanned, long cacheClears,
			int failures) {
	}

}

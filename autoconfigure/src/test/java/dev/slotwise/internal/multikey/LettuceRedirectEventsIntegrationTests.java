package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import io.lettuce.core.cluster.event.AskRedirectionEvent;
import io.lettuce.core.cluster.event.MovedRedirectionEvent;
import io.lettuce.core.cluster.event.RedirectionEventSupport;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code ASK} and {@code MOVED} redirects the engine's commands meet during a real
 * slot migration reach the client's Lettuce event bus as {@link AskRedirectionEvent} and
 * {@link MovedRedirectionEvent}, as those of Lettuce's own commands do: the same
 * cross-slot {@code multiGet}, run with Slotwise off (Lettuce splits it by slot itself),
 * publishes the same kinds of event for the same command and slot.
 */
@WithRedisCluster
class LettuceRedirectEventsIntegrationTests {

	@Test
	void theEnginesRedirectsArePublishedOnTheEventBusAsLettucesOwn(RedisTestCluster cluster) throws Exception {
		cluster.reset();
		List<String> withSlotwise = redirectsDuringAMigration(cluster, true);
		List<String> plainBoot = redirectsDuringAMigration(cluster, false);
		SlotMigration migration = SlotMigration.of(cluster, "{ev}");
		assertThat(withSlotwise).as("with Slotwise")
			.containsExactly("ASK MGET " + migration.slot(), "MOVED MGET " + migration.slot());
		// Plain Lettuce may refresh its partitions by itself between the hand-over and
		// the next read (a refresh the ASK triggered, or its periodic one, late on a busy
		// machine), and then meets no MOVED: its events are the same kinds for the same
		// command and slot, the MOVED only where it met one.
		assertThat(plainBoot).as("plain Spring Boot, the same kinds as with Slotwise")
			.contains("ASK MGET " + migration.slot())
			.isSubsetOf(withSlotwise);
	}

	/**
	 * Moves the slot of {@code {ev}} with its keys, reading across slots when the keys
	 * have moved (the source answers {@code ASK}) and again once the slot is handed over
	 * (it answers {@code MOVED}), then moves it back.
	 * @return each redirect event of the slot, as {@code kind command slot}, without
	 * repeats in a row
	 */
	private static List<String> redirectsDuringAMigration(RedisTestCluster cluster, boolean slotwise) throws Exception {
		List<String> seen = new ArrayList<>();
		SlotMigration migration = SlotMigration.of(cluster, "{ev}");
		MultiKeyTestSupport.runner("lettuce", cluster)
			.withPropertyValues("slotwise.enabled=" + slotwise)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				StringRedisTemplate template = context.getBean(StringRedisTemplate.class);
				Map<String, String> values = new LinkedHashMap<>();
				for (int i = 0; i < 10; i++) {
					values.put("{ev}:" + i, "t" + i);
				}
				for (int i = 0; i < 100; i++) {
					values.put("evo:" + i, "o" + i);
				}
				template.opsForValue().multiSet(values);
				List<String> keys = List.copyOf(values.keySet());
				List<String> expected = List.copyOf(values.values());
				assertThat(template.opsForValue().multiGet(keys)).isEqualTo(expected);
				Queue<RedirectionEventSupport> events = new ConcurrentLinkedQueue<>();
				Disposable subscription = context.getBean(LettuceConnectionFactory.class)
					.getClientResources()
					.eventBus()
					.get()
					.filter(RedirectionEventSupport.class::isInstance)
					.cast(RedirectionEventSupport.class)
					.subscribe(events::add);
				try {
					migration.begin();
					migration.moveAllKeys(0);
					assertThat(template.opsForValue().multiGet(keys)).isEqualTo(expected);
					migration.finish();
					assertThat(template.opsForValue().multiGet(keys)).isEqualTo(expected);
				}
				finally {
					subscription.dispose();
				}
				for (RedirectionEventSupport event : events) {
					if (event.getSlot() != migration.slot()) {
						continue;
					}
					assertThat(event.getKey()).startsWith("{ev}:");
					assertThat(event.getMessage()).contains(String.valueOf(migration.slot()));
					String kind = (event instanceof AskRedirectionEvent) ? "ASK"
							: (event instanceof MovedRedirectionEvent) ? "MOVED" : "?";
					String line = kind + " " + event.getCommand() + " " + event.getSlot();
					if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(line)) {
						seen.add(line);
					}
				}
			});
		migration.moveBack();
		return seen;
	}

}

package dev.slotwise.internal.metrics;

import java.time.Duration;
import java.util.List;

import dev.slotwise.internal.nearcache.NearCache;
import dev.slotwise.internal.nearcache.NearCacheSettings;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link NearCacheMeters} without a cluster: what is counted before a registry binds
 * shows once it does, causes are counted apart, and the size gauges read the cache they
 * were handed.
 */
class NearCacheMetersTests {

	@Test
	void countsMadeBeforeTheRegistryBindsShowOnceItDoes() {
		NearCacheMeters meters = new NearCacheMeters();
		meters.read(true, 3);
		meters.read(false, 2);
		meters.invalidations(4);
		meters.invalidations(0);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		meters.bindTo(registry);
		assertThat(registry.get(NearCacheMeters.READS).tag("result", "hit").functionCounter().count()).isEqualTo(3);
		assertThat(registry.get(NearCacheMeters.READS).tag("result", "miss").functionCounter().count()).isEqualTo(2);
		assertThat(registry.get(NearCacheMeters.INVALIDATIONS).functionCounter().count()).isEqualTo(2);
		assertThat(registry.get(NearCacheMeters.INVALIDATED_KEYS).functionCounter().count()).isEqualTo(4);
		meters.close();
	}

	@Test
	void flushesAndEvictionsAreCountedByCauseAndAnUnknownCauseGetsItsOwnCounters() {
		NearCacheMeters meters = new NearCacheMeters();
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		meters.bindTo(registry);
		assertThat(registry.get(NearCacheMeters.FLUSHES).functionCounters())
			.hasSize(NearCacheMeters.FLUSH_CAUSES.size());
		meters.flushed("link-lost", 5);
		meters.flushed("link-lost", 0);
		meters.flushed("topology", 2);
		meters.flushed("something-new", 1);
		meters.evicted("size");
		meters.evicted("expired");
		meters.evicted("expired");
		assertThat(registry.get(NearCacheMeters.FLUSHES).tag("cause", "link-lost").functionCounter().count())
			.isEqualTo(2);
		assertThat(registry.get(NearCacheMeters.FLUSHED_ENTRIES).tag("cause", "link-lost").functionCounter().count())
			.isEqualTo(5);
		assertThat(registry.get(NearCacheMeters.FLUSHED_ENTRIES).tag("cause", "topology").functionCounter().count())
			.isEqualTo(2);
		assertThat(registry.get(NearCacheMeters.FLUSHES).tag("cause", "something-new").functionCounter().count())
			.isEqualTo(1);
		assertThat(registry.get(NearCacheMeters.EVICTIONS).tag("cause", "size").functionCounter().count()).isEqualTo(1);
		assertThat(registry.get(NearCacheMeters.EVICTIONS).tag("cause", "expired").functionCounter().count())
			.isEqualTo(2);
		meters.close();
	}

	@Test
	void sizeGaugesReadTheCacheAndLinksAreZeroWithoutARuntime() {
		NearCacheMeters meters = new NearCacheMeters();
		NearCache cache = new NearCache(new NearCacheSettings(100, 1_000_000, Duration.ofMinutes(1), List.of()),
				meters);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		meters.bindTo(registry);
		assertThat(registry.get(NearCacheMeters.ENTRIES).gauge().value()).isZero();
		assertThat(registry.get(NearCacheMeters.SIZE).gauge().value()).isEqualTo(cache.weight());
		assertThat(registry.get(NearCacheMeters.LINKS).gauges()).hasSize(4)
			.allSatisfy((gauge) -> assertThat(gauge.value()).isZero());
		// No runtime yet: no count of entries per master, and no thread started for it.
		assertThat(registry.find(NearCacheMeters.MASTER_ENTRIES).gauges()).isEmpty();
		meters.close();
	}

}

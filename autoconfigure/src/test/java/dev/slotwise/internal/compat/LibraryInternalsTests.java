package dev.slotwise.internal.compat;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The self-checks of every library internal Slotwise relies on pass against the Jedis and Lettuce on the class path:
 * a library upgrade that renames or removes one fails here (and in the integration test named beside each fast path
 * in docs/how-it-plugs-in.md), not silently in production.
 */
class LibraryInternalsTests {

	@Test
	void jedisSlotCacheIsReachable() {
		assertThat(JedisInternals.slotCache().problem()).isNull();
		assertThat(JedisInternals.slotCache().relies()).isEqualTo("redis.clients.jedis.UnifiedJedis.provider");
	}

	@Test
	void lettuceEndpointChannelIsReachable() {
		assertThat(LettuceInternals.batchWrite().problem()).isNull();
	}

	@Test
	void lettuceReadFromOrderIsReachable() {
		assertThat(LettuceInternals.readFromOrder().problem()).isNull();
		assertThat(LettuceInternals.isOrderSensitive(io.lettuce.core.ReadFrom.REPLICA_PREFERRED)).isTrue();
		assertThat(LettuceInternals.isOrderSensitive(io.lettuce.core.ReadFrom.ANY_REPLICA)).isFalse();
	}

	@Test
	void anInactiveFastPathNamesItsProblemAndFallback() {
		FastPath off = new FastPath("x", "Some.field", "done the slow way", "cannot read Some.field");
		assertThat(off.active()).isFalse();
		assertThat(off.describe()).isEqualTo("off (cannot read Some.field): done the slow way");
		assertThat(FastPaths.summarize(List.of(new FastPath("a", "A.a", "slow", null), off)))
			.isEqualTo("active a; x off (cannot read Some.field): done the slow way");
	}

}

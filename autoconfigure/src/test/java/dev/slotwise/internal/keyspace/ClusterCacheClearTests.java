package dev.slotwise.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;

import dev.slotwise.internal.keyspace.FakeScanTransport.FakeNode;
import dev.slotwise.internal.routing.SlotHash;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * Slotwise's batch strategy over an in-memory cluster: on a connection whose {@code scan}
 * is the cluster-wide scan it removes every key where its walk found it and sends nothing
 * back; on any other connection it deletes what the scan returns, a page at a time.
 */
class ClusterCacheClearTests {

	private static final ScanSettings SETTINGS = new ScanSettings(2, 100, Duration.ofSeconds(2), Duration.ofSeconds(5));

	@Test
	void clearsThroughTheClusterWideScanWhereTheKeysWereFound() {
		FakeScanTransport transport = new FakeScanTransport();
		FakeNode a = transport.add("a", 7000, 0, 8192);
		FakeNode b = transport.add("b", 7001, 8192, 16384);
		for (int i = 0; i < 1000; i++) {
			String key = "things::" + i;
			FakeNode owner = (SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) < 8192) ? a : b;
			owner.put(key, owner.position(key));
		}
		a.put("other", a.position("other"));
		ClusterKeyspace keyspace = new ClusterKeyspace(transport, SETTINGS, ScanObserver.NONE);
		RedisKeyCommands keys = mock(RedisKeyCommands.class);
		given(keys.scan(any(ScanOptions.class))).willAnswer((invocation) -> keyspace.scan(invocation.getArgument(0)));
		RedisConnection connection = mock(RedisConnection.class);
		given(connection.keyCommands()).willReturn(keys);
		long deleted = new ClusterCacheClear(100).cleanCache(connection, "things", bytes("things::*"));
		assertThat(deleted).isEqualTo(1000);
		assertThat(a.table.values().stream().flatMap(List::stream).toList()).containsExactly("other");
		assertThat(b.table.values().stream().flatMap(List::stream).toList()).isEmpty();
		assertThat(transport.unlinks).isPositive();
		// Nothing came back to be deleted through the connection.
		verify(keys, never()).del(any(byte[][].class));
		verify(keys, never()).unlink(any(byte[][].class));
	}

	@Test
	void deletesWhatAnotherScanReturnsAPageAtATime() {
		List<byte[]> found = List.of(bytes("things::1"), bytes("things::2"), bytes("things::3"));
		Cursor<byte[]> cursor = cursor(found.iterator());
		RedisKeyCommands keys = mock(RedisKeyCommands.class);
		given(keys.scan(any(ScanOptions.class))).willReturn(cursor);
		given(keys.del(any(byte[][].class)))
			.willAnswer((invocation) -> (long) ((byte[][]) invocation.getRawArguments()[0]).length);
		RedisConnection connection = mock(RedisConnection.class);
		given(connection.keyCommands()).willReturn(keys);
		assertThat(new ClusterCacheClear(2).cleanCache(connection, "things", bytes("things::*"))).isEqualTo(3);
		verify(keys, times(2)).del(any(byte[][].class));
		verify(cursor).close();
	}

	@Test
	void aCursorAlreadyReadCannotClear() {
		FakeScanTransport transport = new FakeScanTransport();
		FakeNode a = transport.add("a", 7000, 0, 16384);
		a.put("k", a.position("k"));
		ClusterKeyspace keyspace = new ClusterKeyspace(transport, SETTINGS, ScanObserver.NONE);
		ClusterScanCursor cursor = (ClusterScanCursor) keyspace.scan(ScanOptions.scanOptions().build());
		assertThat(cursor.hasNext()).isTrue();
		assertThatIllegalStateException().isThrownBy(() -> cursor.clearCache((rest) -> 0));
		cursor.close();
		assertThat(a.table.values().stream().flatMap(List::stream).toList()).containsExactly("k");
	}

	@SuppressWarnings("unchecked")
	private static Cursor<byte[]> cursor(Iterator<byte[]> keys) {
		Cursor<byte[]> cursor = mock(Cursor.class);
		given(cursor.hasNext()).willAnswer((invocation) -> keys.hasNext());
		given(cursor.next()).willAnswer((invocation) -> keys.next());
		return cursor;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}

package dev.slotwise.internal.keyspace;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import dev.slotwise.internal.keyspace.FakeScanTransport.FakeNode;
import dev.slotwise.internal.routing.SlotHash;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scan's recovery on an in-memory cluster whose topology the test changes between
 * pages: a slot migrating so that both walks miss its keys, and a node failing mid-walk.
 */
class ClusterScanTests {

	private static final ScanSettings SETTINGS = new ScanSettings(2, 100, Duration.ofSeconds(2), Duration.ofSeconds(5));

	@Test
	void keysOfASlotMigratingPastBothCursorsAreRescanned() {
		FakeScanTransport transport = new FakeScanTransport();
		FakeNode a = transport.add("a", 7000, 0, 8192);
		FakeNode b = transport.add("b", 7001, 8192, 16384);
		Set<String> expected = new HashSet<>();
		String tag = tagInRange(0, 8192);
		int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
		List<String> migrating = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			String key = tag + ":" + i;
			a.put(key, a.position(key));
			migrating.add(key);
			expected.add(key);
		}
		for (int i = 0; i < 2000; i++) {
			String key = "k:" + i;
			FakeNode owner = (SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) < 8192) ? a : b;
			owner.put(key, owner.position(key));
			expected.add(key);
		}
		// Once A's walk is halfway and B's has begun, the slot moves: its keys A has not
		// reached yet land on B at a position B's cursor has passed.
		boolean[] moved = { false };
		int[] bCursor = { 0 };
		transport.beforePage = (node, cursor) -> {
			if (node == b) {
				bCursor[0] = cursor;
			}
			if (!moved[0] && node == a && cursor >= FakeScanTransport.TABLE / 2 && bCursor[0] > 0) {
				moved[0] = true;
				for (String key : migrating) {
					a.remove(key);
					b.put(key, 0);
				}
				a.slots.clear(slot);
				b.slots.set(slot);
			}
		};
		Result result = scan(transport);
		assertThat(moved[0]).isTrue();
		assertThat(missing(expected, result.keys)).isEmpty();
		assertThat(result.scan.rescanned()).isPositive();
	}

	@Test
	void aSlotStillMigratingWhenTheWalksEndIsReadOnBothNodes() {
		FakeScanTransport transport = new FakeScanTransport();
		FakeNode a = transport.add("a", 7000, 0, 8192);
		FakeNode b = transport.add("b", 7001, 8192, 16384);
		String tag = tagInRange(0, 8192);
		int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
		Set<String> expected = new HashSet<>();
		List<String> migrating = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			String key = tag + ":" + i;
			a.put(key, a.position(key));
			migrating.add(key);
			expected.add(key);
		}
		for (int i = 0; i < 2000; i++) {
			String key = "k:" + i;
			FakeNode owner = (SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) < 8192) ? a : b;
			owner.put(key, owner.position(key));
			expected.add(key);
		}
		boolean[] moved = { false };
		int[] bCursor = { 0 };
		transport.beforePage = (node, cursor) -> {
			if (node == b) {
				bCursor[0] = cursor;
			}
			if (!moved[0] && node == a && cursor >= FakeScanTransport.TABLE / 2 && bCursor[0] > 0) {
				moved[0] = true;
				a.migrating.set(slot);
				b.importing.set(slot);
				// Half the keys move to B's start, already passed by B's cursor; the slot
				// stays A's.
				for (String key : migrating.subList(0, 50)) {
					a.remove(key);
					b.put(key, 0);
				}
			}
		};
		Result result = scan(transport);
		assertThat(moved[0]).isTrue();
		assertThat(missing(expected, result.keys)).isEmpty();
	}

	@Test
	void aWalkWhoseNodeFailsStartsOverOnTheMasterThatTookItsSlots() {
		FakeScanTransport transport = new FakeScanTransport();
		FakeNode a = transport.add("a", 7000, 0, 8192);
		FakeNode b = transport.add("b", 7001, 8192, 16384);
		FakeNode replica = transport.add("a2", 7002, 0, 0);
		replica.master = false;
		replica.masterId = "a";
		Set<String> expected = new HashSet<>();
		for (int i = 0; i < 3000; i++) {
			String key = "k:" + i;
			boolean onA = SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) < 8192;
			(onA ? a : b).put(key, (onA ? a : b).position(key));
			if (onA) {
				// The replica holds the same keys, hashed with its own seed.
				replica.put(key, replica.position(key));
			}
			expected.add(key);
		}
		boolean[] failed = { false };
		transport.beforePage = (node, cursor) -> {
			if (!failed[0] && node == a && cursor >= FakeScanTransport.TABLE / 2) {
				failed[0] = true;
				a.down = true;
				a.master = false;
				a.masterId = "a2";
				replica.master = true;
				replica.masterId = null;
				replica.slots.or(a.slots);
				a.slots.clear();
			}
		};
		Result result = scan(transport);
		assertThat(missing(expected, result.keys)).isEmpty();
		assertThat(result.scan.restarts()).isOne();
		assertThat(result.scan.rescanned()).isPositive();
	}

	@Test
	void closeStopsEveryWalk() {
		FakeScanTransport transport = new FakeScanTransport();
		FakeNode a = transport.add("a", 7000, 0, 8192);
		FakeNode b = transport.add("b", 7001, 8192, 16384);
		for (int i = 0; i < 5000; i++) {
			String key = "k:" + i;
			FakeNode owner = (SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) < 8192) ? a : b;
			owner.put(key, owner.position(key));
		}
		ClusterScan scan = new ClusterScan(transport, SETTINGS, null, null, null, ScanObserver.NONE, false).start();
		for (int i = 0; i < 3; i++) {
			assertThat(scan.takePage()).isNotEmpty();
		}
		long scans = transport.scans;
		// Read-ahead: 100 keys buffered at most, two pages in flight.
		assertThat(scans).isLessThan(10);
		scan.close();
		assertThat(scan.pollPage()).isNull();
		assertThat(scan.isFinished()).isTrue();
		assertThat(transport.scans).isEqualTo(scans);
	}

	@Test
	void aCacheClearRemovesKeysWhereItsWalksFoundThemAndLeavesRefusedOnesToItsOwnDelete() {
		FakeScanTransport transport = new FakeScanTransport();
		FakeNode a = transport.add("a", 7000, 0, 8192);
		FakeNode b = transport.add("b", 7001, 8192, 16384);
		String tag = tagInRange(0, 8192);
		int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
		Set<String> expected = new HashSet<>();
		List<String> migrating = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			String key = tag + ":" + i;
			a.put(key, a.position(key));
			migrating.add(key);
			expected.add(key);
		}
		for (int i = 0; i < 3000; i++) {
			String key = "k:" + i;
			FakeNode owner = (SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) < 8192) ? a : b;
			owner.put(key, owner.position(key));
			expected.add(key);
		}
		// Between A's first page and its UNLINKs the slot moves to B: A refuses the
		// UNLINK of its keys (a redirect).
		boolean[] moved = { false };
		transport.beforeUnlink = (node) -> {
			if (!moved[0] && node == a) {
				moved[0] = true;
				// Every key of the slot: the tagged ones and any plain key hashing to it.
				List<String> inSlot = a.table.values()
					.stream()
					.flatMap(List::stream)
					.filter((key) -> SlotHash.slot(key.getBytes(StandardCharsets.UTF_8)) == slot)
					.toList();
				for (String key : inSlot) {
					a.remove(key);
					b.put(key, b.position(key));
				}
				a.slots.clear(slot);
				b.slots.set(slot);
			}
		};
		ClusterScan scan = new ClusterScan(transport, SETTINGS, null, null, null, ScanObserver.NONE, true).start();
		Set<String> returned = new HashSet<>();
		long claimed = 0;
		long deleted = 0;
		for (List<byte[]> page = scan.takePage(); page != null; page = scan.takePage()) {
			byte[][] keys = page.toArray(new byte[0][]);
			byte[][] rest = scan.claimRemoved(keys);
			claimed += keys.length - rest.length;
			for (byte[] key : keys) {
				returned.add(new String(key, StandardCharsets.UTF_8));
			}
			// The clear's own delete, routed by slot.
			for (byte[] key : rest) {
				String text = new String(key, StandardCharsets.UTF_8);
				FakeNode owner = a.slots.get(SlotHash.slot(key)) ? a : b;
				deleted += owner.remove(text) ? 1 : 0;
			}
		}
		assertThat(moved[0]).isTrue();
		assertThat(missing(expected, returned)).isEmpty();
		assertThat(a.table.values().stream().flatMap(List::stream).toList()).as("left on a").isEmpty();
		assertThat(b.table.values().stream().flatMap(List::stream).toList()).as("left on b").isEmpty();
		// Every key was removed once: by the scan where found, or by the clear's delete
		// when its node refused.
		assertThat(claimed + deleted).isEqualTo(expected.size());
		assertThat(deleted).isPositive().isLessThanOrEqualTo(migrating.size() + 20);
	}

	private static Result scan(FakeScanTransport transport) {
		ClusterScan scan = new ClusterScan(transport, SETTINGS, null, null, null, ScanObserver.NONE, false).start();
		Set<String> keys = new HashSet<>();
		for (List<byte[]> page = scan.takePage(); page != null; page = scan.takePage()) {
			for (byte[] key : page) {
				keys.add(new String(key, StandardCharsets.UTF_8));
			}
		}
		return new Result(scan, keys);
	}

	private static Set<String> missing(Set<String> expected, Set<String> found) {
		Set<String> missing = new HashSet<>(expected);
		missing.removeAll(found);
		return missing;
	}

	private static String tagInRange(int from, int to) {
		for (int i = 0;; i++) {
			String tag = "{m" + i + "}";
			int slot = SlotHash.slot(tag.getBytes(StandardCharsets.UTF_8));
			if (slot >= from && slot < to) {
				return tag;
			}
		}
	}

	private record Result(ClusterScan scan, Set<String> keys) {
	}

}

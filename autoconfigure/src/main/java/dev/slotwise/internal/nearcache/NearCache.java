package dev.slotwise.internal.nearcache;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.slotwise.internal.routing.SlotHash;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.util.ByteArrayWrapper;

/**
 * The local tier: values read from Redis, by key, kept while the nodes' invalidations say
 * they are current.
 * <p>
 * A read goes {@link #lookup} (a hit ends there), {@link #ticket} before it is sent,
 * {@link #offer} with the reply. The reply is kept only if its slot is tracked and
 * nothing touched the slot meanwhile ({@link SlotGuard}); it is put first and taken back
 * if the slot was touched, while an invalidation touches the slot first and removes
 * second, so the two orders of a racing put and invalidation both end without the value.
 * <p>
 * Bounded by Caffeine by entries and bytes at once: an entry weighs its key and value
 * bytes, and never less than {@code maxBytes / maxEntries}, so the total weight bound
 * keeps both. Entries expire after the time-to-live whatever the invalidations say.
 */
public final class NearCache {

	/**
	 * What an entry is thought to cost beyond its key and value bytes (the wrapper, the
	 * array headers, the node).
	 */
	private static final int OVERHEAD = 96;

	private final SlotGuard guard = new SlotGuard();

	private final Cache<ByteArrayWrapper, Entry> entries;

	private final NearCacheSettings settings;

	private final NearCacheObserver observer;

	/** The prefixes tracked on every node: the template's and the Spring caches'. */
	private final List<byte[]> trackedPrefixes = new CopyOnWriteArrayList<>();

	private final List<Runnable> prefixListeners = new CopyOnWriteArrayList<>();

	/**
	 * Creates an empty cache: nothing is kept until slots are {@linkplain #track
	 * tracked}.
	 * @param settings the limits
	 * @param observer what sees reads, evictions and flushes
	 */
	public NearCache(NearCacheSettings settings, NearCacheObserver observer) {
		this.settings = settings;
		this.observer = observer;
		int floor = (int) Math.min(Integer.MAX_VALUE, Math.max(1, settings.maxBytes() / settings.maxEntries()));
		this.entries = Caffeine.newBuilder()
			.maximumWeight(settings.maxBytes())
			.weigher((ByteArrayWrapper key, Entry entry) -> Math.max(floor, entry.weight()))
			.expireAfterWrite(settings.timeToLive())
			.evictionListener((ByteArrayWrapper key, Entry entry, RemovalCause cause) -> {
				if (cause.wasEvicted()) {
					observer.evicted((cause == RemovalCause.EXPIRED) ? "expired" : "size");
				}
			})
			.build();
		this.trackedPrefixes.addAll(Prefixes.disjoint(settings.keyPrefixes()));
		observer.bind(this);
	}

	/**
	 * Returns the limits.
	 * @return the settings
	 */
	public NearCacheSettings settings() {
		return this.settings;
	}

	/**
	 * Tells whether template reads of the key are cached: it starts with one of
	 * {@code slotwise.near-cache.key-prefixes}.
	 * @param key the key
	 * @return whether the key is covered
	 */
	public boolean coversTemplateKey(byte[] key) {
		return Prefixes.covers(key, this.settings.keyPrefixes());
	}

	/**
	 * Returns the value kept for a key, counting a hit or a miss.
	 * @param key the key
	 * @return the value, or {@code null} when the key must be read from Redis
	 */
	public byte @Nullable [] lookup(byte[] key) {
		byte[] value = peek(key);
		this.observer.read(value != null, 1);
		return value;
	}

	/**
	 * Returns the value kept for a key without counting it.
	 * @param key the key
	 * @return the value, or {@code null}
	 */
	public byte @Nullable [] peek(byte[] key) {
		Entry entry = this.entries.getIfPresent(new ByteArrayWrapper(key));
		// The slot's flag as well: entries of a slot that just stopped being tracked are
		// being removed. A copy: the caller may change the array it gets, and the entry
		// must not change with it.
		return (entry != null && this.guard.tracked(entry.slot)) ? entry.value.clone() : null;
	}

	/**
	 * Counts reads answered from Redis or from memory, for callers that look up several
	 * keys at once.
	 * @param hit whether from memory
	 * @param count how many keys
	 */
	public void count(boolean hit, int count) {
		if (count > 0) {
			this.observer.read(hit, count);
		}
	}

	/**
	 * Returns the ticket a read of the key takes before it is sent.
	 * @param key the key
	 * @return the ticket, for {@link #offer}
	 */
	public long ticket(byte[] key) {
		return this.guard.ticket(SlotHash.slot(key));
	}

	/**
	 * Keeps a read's reply, if nothing touched its slot since the ticket was taken.
	 * Absent keys are not kept.
	 * @param key the key
	 * @param ticket the ticket taken before the read was sent
	 * @param value the reply
	 */
	public void offer(byte[] key, long ticket, byte @Nullable [] value) {
		if (value == null || ticket == SlotGuard.UNTRACKED) {
			return;
		}
		int slot = SlotHash.slot(key);
		if (!this.guard.holds(slot, ticket)) {
			return;
		}
		ByteArrayWrapper wrapped = new ByteArrayWrapper(key.clone());
		Entry entry = new Entry(value.clone(), slot, key.length);
		this.entries.put(wrapped, entry);
		if (!this.guard.holds(slot, ticket)) {
			this.entries.asMap().remove(wrapped, entry);
		}
	}

	/**
	 * Drops a key this application is about to write or has written: its next read goes
	 * to Redis (the node's invalidation arrives too, later).
	 * @param key the key
	 */
	public void written(byte[] key) {
		this.guard.touch(SlotHash.slot(key));
		this.entries.invalidate(new ByteArrayWrapper(key));
	}

	/**
	 * Drops every key that matches, as a cache clear does.
	 * @param keys which keys
	 * @param cause why, for the meters
	 */
	public void drop(Predicate<byte[]> keys, String cause) {
		BitSet slots = new BitSet(SlotHash.SLOT_COUNT);
		this.entries.asMap().forEach((key, entry) -> {
			if (keys.test(key.getArray())) {
				slots.set(entry.slot);
			}
		});
		slots.stream().forEach(this.guard::touch);
		int[] dropped = { 0 };
		this.entries.asMap().entrySet().removeIf((e) -> keys.test(e.getKey().getArray()) && ++dropped[0] > 0);
		this.observer.flushed(cause, dropped[0]);
	}

	/**
	 * A node said these keys changed.
	 * @param keys the keys
	 */
	void invalidated(List<byte[]> keys) {
		for (byte[] key : keys) {
			written(key);
		}
		this.observer.invalidations(keys.size());
	}

	/**
	 * Slots become tracked: reads of them may be kept from now on.
	 * @param slots the slots
	 */
	void track(BitSet slots) {
		slots.stream().forEach(this.guard::track);
	}

	/**
	 * Slots stop being tracked: their entries go and their reads are not kept until they
	 * are tracked again.
	 * @param slots the slots
	 * @param cause why, for the meters
	 */
	void untrack(BitSet slots, String cause) {
		if (!slots.isEmpty()) {
			slots.stream().forEach(this.guard::untrack);
			removeSlots(slots, cause);
		}
	}

	/**
	 * Drops the entries of slots and disowns their reads in flight, leaving them tracked.
	 * @param slots the slots
	 * @param cause why, for the meters
	 */
	void flush(BitSet slots, String cause) {
		if (!slots.isEmpty()) {
			slots.stream().forEach(this.guard::touch);
			removeSlots(slots, cause);
		}
	}

	private void removeSlots(BitSet slots, String cause) {
		int[] dropped = { 0 };
		this.entries.asMap().values().removeIf((entry) -> slots.get(entry.slot) && ++dropped[0] > 0);
		this.observer.flushed(cause, dropped[0]);
	}

	/**
	 * Tells whether a slot is tracked.
	 * @param slot the slot
	 * @return whether reads of it may be kept
	 */
	boolean tracked(int slot) {
		return this.guard.tracked(slot);
	}

	/**
	 * Adds prefixes to track on every node, as the Spring caches' key prefixes. Listeners
	 * (the tracking, which then registers them again on every node) hear of it when the
	 * list changed.
	 * @param prefixes the prefixes
	 */
	public synchronized void trackPrefixes(List<byte[]> prefixes) {
		List<byte[]> merged = new java.util.ArrayList<>(this.trackedPrefixes);
		merged.addAll(prefixes);
		List<byte[]> disjoint = Prefixes.disjoint(merged);
		if (!same(disjoint, this.trackedPrefixes)) {
			this.trackedPrefixes.clear();
			this.trackedPrefixes.addAll(disjoint);
			this.prefixListeners.forEach(Runnable::run);
		}
	}

	private static boolean same(List<byte[]> a, List<byte[]> b) {
		return a.size() == b.size()
				&& a.stream().allMatch((x) -> b.stream().anyMatch((y) -> java.util.Arrays.equals(x, y)));
	}

	/**
	 * Returns the prefixes tracked on every node.
	 * @return the prefixes, none covering another
	 */
	List<byte[]> trackedPrefixes() {
		return List.copyOf(this.trackedPrefixes);
	}

	void onPrefixesChanged(Runnable listener) {
		this.prefixListeners.add(listener);
	}

	/**
	 * Returns how many entries are kept.
	 * @return the estimated count
	 */
	public long size() {
		return this.entries.estimatedSize();
	}

	/**
	 * Returns how many bytes the entries weigh.
	 * @return the total weight
	 */
	public long weight() {
		return this.entries.policy().eviction().map((eviction) -> eviction.weightedSize().orElse(0)).orElse(0L);
	}

	/**
	 * Counts the entries of each slot owner.
	 * @param owner who owns a slot, {@code null} when nobody known
	 * @return the count per owner
	 */
	Map<String, Integer> entriesPer(java.util.function.IntFunction<@Nullable String> owner) {
		Map<String, Integer> counts = new java.util.TreeMap<>();
		this.entries.asMap().values().forEach((entry) -> {
			String node = owner.apply(entry.slot);
			counts.merge((node != null) ? node : "unknown", 1, Integer::sum);
		});
		return counts;
	}

	/** Drops everything, as when the cache stops. */
	void clear() {
		this.entries.invalidateAll();
	}

	private record Entry(byte[] value, int slot, int keyLength) {

		int weight() {
			return (int) Math.min(Integer.MAX_VALUE, (long) this.value.length + this.keyLength + OVERHEAD);
		}

	}

}

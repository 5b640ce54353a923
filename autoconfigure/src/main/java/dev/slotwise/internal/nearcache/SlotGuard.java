package dev.slotwise.internal.nearcache;

import java.util.concurrent.atomic.AtomicLongArray;

import dev.slotwise.internal.routing.SlotHash;

/**
 * One counter per slot that tells whether a read may be kept. A counter is odd while its
 * slot is tracked (every live node of the slot's shard has an invalidation connection up)
 * and even while it is not; anything that makes a value of the slot doubtful (an
 * invalidation, a flush, tracking lost or regained) moves it on.
 * <p>
 * A read takes a {@linkplain #ticket(int) ticket} before it is sent and may keep its
 * reply only if the counter still equals the ticket afterwards: an invalidation that
 * arrives while the read is in flight, before or after its reply (Redis before 7.4 may
 * send it either way round, and it travels on another connection anyway), moves the
 * counter on. Counting per slot rather than per key means a busy slot sometimes costs a
 * read its place in the cache, never a stale value.
 */
final class SlotGuard {

	/** The ticket of a slot that is not tracked: a read of it is never kept. */
	static final long UNTRACKED = -1;

	private final AtomicLongArray counters = new AtomicLongArray(SlotHash.SLOT_COUNT);

	/**
	 * Returns the ticket a read of the slot takes before it is sent.
	 * @param slot the slot
	 * @return the ticket, {@link #UNTRACKED} when the slot's values may not be kept
	 */
	long ticket(int slot) {
		long counter = this.counters.get(slot);
		return ((counter & 1) == 1) ? counter : UNTRACKED;
	}

	/**
	 * Tells whether nothing touched the slot since the ticket was taken.
	 * @param slot the slot
	 * @param ticket the ticket
	 * @return whether the read's reply may be kept
	 */
	boolean holds(int slot, long ticket) {
		return ticket != UNTRACKED && this.counters.get(slot) == ticket;
	}

	/**
	 * Moves the slot's counter on, keeping whether it is tracked: called before its
	 * entries are dropped.
	 * @param slot the slot
	 */
	void touch(int slot) {
		this.counters.addAndGet(slot, 2);
	}

	/**
	 * Marks the slot tracked, moving its counter on if it was not.
	 * @param slot the slot
	 * @return whether it was not tracked before
	 */
	boolean track(int slot) {
		return flip(slot, 0);
	}

	/**
	 * Marks the slot not tracked, moving its counter on if it was.
	 * @param slot the slot
	 * @return whether it was tracked before
	 */
	boolean untrack(int slot) {
		return flip(slot, 1);
	}

	/**
	 * Tells whether the slot is tracked.
	 * @param slot the slot
	 * @return whether reads of it may be kept
	 */
	boolean tracked(int slot) {
		return (this.counters.get(slot) & 1) == 1;
	}

	private boolean flip(int slot, int from) {
		while (true) {
			long counter = this.counters.get(slot);
			if ((counter & 1) != from) {
				return false;
			}
			if (this.counters.compareAndSet(slot, counter, counter + 1)) {
				return true;
			}
		}
	}

}

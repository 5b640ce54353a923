package dev.slotwise.benchmarks.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the checks found for one application, summed over its workers. "Wrong" counts
 * break the promise (a value never written, a read going back without a fault that could
 * lose data, a write reported failed landing over a newer acknowledged one, an increment
 * applied twice); "lost" counts are writes the servers themselves dropped when a master
 * was killed before its replica had them (asynchronous replication), compared with the
 * control.
 */
final class Invariants {

	/**
	 * Reads of a value no worker ever wrote to that key (malformed, another key's, a
	 * version never sent).
	 */
	final LongAdder neverWritten = new LongAdder();

	/**
	 * Reads older than one already read or acknowledged, where the older value was
	 * written by a call that reported failure: the failed write landed after the newer
	 * one (the late write of issue #21).
	 */
	final LongAdder lateWrites = new LongAdder();

	/**
	 * Other reads older than one already read or acknowledged, with no master kill that
	 * could explain them.
	 */
	final LongAdder staleReads = new LongAdder();

	/**
	 * Near-cache reads older than a write acknowledged more than
	 * {@link NearCacheReader#BOUND_NANOS} before the read started, with no kill or failed
	 * write to explain them.
	 */
	final LongAdder nearCacheStale = new LongAdder();

	/**
	 * Reads older than one acknowledged, explained by a master killed right after the
	 * newer write.
	 */
	final LongAdder lostToKill = new LongAdder();

	/**
	 * Increments applied more often than they were sent (beyond every failed INCR landing
	 * once).
	 */
	final LongAdder duplicateIncrements = new LongAdder();

	/**
	 * Acknowledged increments a counter later did not count, explained by a master kill.
	 */
	final LongAdder lostIncrementsToKill = new LongAdder();

	/**
	 * Acknowledged increments a counter later did not count, with no kill to explain
	 * them.
	 */
	final LongAdder lostIncrementsUnexplained = new LongAdder();

	/**
	 * Increments the application saw fail (time out, connection lost) that the server
	 * applied anyway.
	 */
	final LongAdder failedButApplied = new LongAdder();

	/** Values checked (reads and INCR replies). */
	final LongAdder checked = new LongAdder();

	/** The first violations, described, for the report. */
	private final List<String> examples = new ArrayList<>();

	long wrong() {
		return this.neverWritten.sum() + this.lateWrites.sum() + this.staleReads.sum()
				+ this.lostIncrementsUnexplained.sum() + this.nearCacheStale.sum();
	}

	void example(String text) {
		synchronized (this.examples) {
			if (this.examples.size() < 20) {
				this.examples.add(text);
			}
		}
	}

	List<String> examples() {
		synchronized (this.examples) {
			return List.copyOf(this.examples);
		}
	}

}

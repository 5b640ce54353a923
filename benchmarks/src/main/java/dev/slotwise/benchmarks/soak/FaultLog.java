package dev.slotwise.benchmarks.soak;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The faults of a run, in order, shared by the injector (which adds and ends them) and
 * the workers' checks (which ask whether a master was killed when a regression could have
 * been the server's loss). Times are nanoseconds since the run started.
 */
final class FaultLog {

	/**
	 * How long before a master is killed an acknowledged write may still be only on that
	 * master (async replication).
	 */
	static final long REPLICATION_LAG_NANOS = 1_000_000_000L;

	private final List<Fault> faults = new CopyOnWriteArrayList<>();

	Fault start(String kind, String detail, long startNanos) {
		Fault fault = new Fault(this.faults.size() + 1, kind, detail, startNanos);
		this.faults.add(fault);
		return fault;
	}

	List<Fault> all() {
		return List.copyOf(this.faults);
	}

	/**
	 * Tells whether the server may have lost a write: a master was killed at most
	 * {@link #REPLICATION_LAG_NANOS} after the write ended (or while it ran), and before
	 * the read that missed it started.
	 * @param writeStart when the write was sent
	 * @param writeEnd when it was answered (or failed)
	 * @param readStart when the read that did not see it was sent
	 */
	boolean killCouldHaveLost(long writeStart, long writeEnd, long readStart) {
		for (Fault fault : this.faults) {
			if (fault.kind.equals("kill") && fault.startNanos >= writeStart
					&& fault.startNanos <= writeEnd + REPLICATION_LAG_NANOS && fault.startNanos < readStart) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Tells whether an operation overlapped a fault's window: from the fault's start to
	 * {@code graceNanos} after its end (a fault still going counts as open).
	 */
	boolean insideWindow(long opStart, long opEnd, long graceNanos) {
		for (Fault fault : this.faults) {
			long end = fault.endNanos;
			long windowEnd = (end == 0) ? Long.MAX_VALUE : end + graceNanos;
			if (opEnd >= fault.startNanos && opStart <= windowEnd) {
				return true;
			}
		}
		return false;
	}

	/** One injected fault. */
	static final class Fault {

		final int number;

		final String kind;

		final String detail;

		final long startNanos;

		/**
		 * When the fault ended (node restarted, pause over, migration done); 0 while it
		 * lasts.
		 */
		volatile long endNanos;

		Fault(int number, String kind, String detail, long startNanos) {
			this.number = number;
			this.kind = kind;
			this.detail = detail;
			this.startNanos = startNanos;
		}

	}

}

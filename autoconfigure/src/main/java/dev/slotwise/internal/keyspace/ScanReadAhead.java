package dev.slotwise.internal.keyspace;

import java.util.ArrayDeque;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessException;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The read-ahead of a {@link ClusterScan}: the pages of keys found and not yet handed
 * out, and the keys in removal, which together stay below
 * {@link ScanSettings#readAhead()} before the scan stops reading nodes; the consumer
 * takes pages here, waiting for one or signalled when one arrives. Guarded by the scan's
 * monitor, which every method that says so expects its caller to hold.
 */
final class ScanReadAhead {

	private final ClusterScan scan;

	private final int readAhead;

	private final ArrayDeque<List<byte[]>> buffer = new ArrayDeque<>();

	private int buffered;

	/**
	 * Keys whose {@code UNLINK}s are in flight: they count against the read-ahead like
	 * buffered ones.
	 */
	private int removing;

	private long returned;

	/** Consumers waiting in {@link #takePage()}. */
	private int waiting;

	private Runnable signal = () -> {
	};

	/**
	 * @param scan the scan, whose monitor guards the read-ahead
	 * @param readAhead how many keys may wait for the consumer, in the buffer or in
	 * removal
	 */
	ScanReadAhead(ClusterScan scan, int readAhead) {
		this.scan = scan;
		this.readAhead = readAhead;
	}

	/**
	 * Whether another page may be read (the scan's monitor held).
	 */
	boolean hasRoom() {
		return this.buffered + this.removing < this.readAhead;
	}

	/**
	 * Buffers a page for the consumer (the scan's monitor held).
	 */
	void add(List<byte[]> keys) {
		this.buffer.add(keys);
		this.buffered += keys.size();
	}

	/**
	 * Counts keys into removal, or, negative, out of it (the scan's monitor held).
	 */
	void removing(int keys) {
		this.removing += keys;
	}

	/**
	 * Whether no key is in removal (the scan's monitor held).
	 */
	boolean noneRemoving() {
		return this.removing == 0;
	}

	/**
	 * Whether no page waits for the consumer (the scan's monitor held).
	 */
	boolean isEmpty() {
		return this.buffer.isEmpty();
	}

	/**
	 * The keys handed out or waiting to be (the scan's monitor held).
	 */
	long keys() {
		return this.returned + this.buffered;
	}

	/**
	 * Drops the buffered pages (the scan's monitor held).
	 */
	void clear() {
		this.buffer.clear();
		this.buffered = 0;
	}

	/**
	 * Sets what runs whenever keys arrive or the scan ends.
	 */
	void onSignal(Runnable signal) {
		synchronized (this.scan) {
			this.signal = signal;
		}
	}

	/**
	 * Wakes a consumer waiting for keys and runs the signal.
	 */
	void signal() {
		Runnable signal;
		synchronized (this.scan) {
			// Only a consumer that found nothing waits; one that is busy with earlier
			// pages needs no wake-up (with small pages, one per page was a context switch
			// per SCAN).
			if (this.waiting > 0) {
				this.scan.notifyAll();
			}
			signal = this.signal;
		}
		signal.run();
	}

	/**
	 * Returns the next buffered page of keys without waiting.
	 * @return the keys, never empty, or {@code null} when none is buffered
	 */
	@Nullable List<byte[]> pollPage() {
		List<byte[]> page;
		boolean low;
		synchronized (this.scan) {
			page = this.buffer.poll();
			if (page == null) {
				return null;
			}
			this.buffered -= page.size();
			this.returned += page.size();
			// Only when a page could start: a walk idle (neither reading nor ended) and
			// room in flight and in the buffer, or a rescan due.
			low = hasRoom() && this.scan.pageCouldStart();
		}
		if (low) {
			this.scan.pump();
		}
		return page;
	}

	/**
	 * Returns the next page of keys, waiting for one.
	 * @return the keys, never empty, or {@code null} at the end
	 * @throws DataAccessException when the scan failed
	 */
	@Nullable List<byte[]> takePage() {
		while (true) {
			List<byte[]> page = pollPage();
			if (page != null) {
				return page;
			}
			synchronized (this.scan) {
				if (!this.buffer.isEmpty()) {
					continue;
				}
				DataAccessException failure = this.scan.failure();
				if (failure != null) {
					throw failure;
				}
				if (this.scan.hasEnded()) {
					return null;
				}
				try {
					this.waiting++;
					try {
						this.scan.wait(100);
					}
					finally {
						this.waiting--;
					}
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					throw new DataAccessResourceFailureException("Interrupted while waiting for scanned keys", ex);
				}
			}
		}
	}

}

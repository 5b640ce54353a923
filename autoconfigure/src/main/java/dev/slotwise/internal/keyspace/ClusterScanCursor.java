package dev.slotwise.internal.keyspace;

import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.ToLongFunction;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.core.Cursor;

/**
 * A {@link Cursor} over a {@link ClusterScan}: {@link #hasNext()} waits for the walks'
 * next key; {@link #close()} stops every walk. Its id is {@code 0} once the scan ended
 * and otherwise a number that only says it goes on: there is no single server cursor to
 * resume from.
 * <p>
 * The walks start when the cursor is first read, or as a cache clear with
 * {@link #clearCache(ToLongFunction)}: Spring Data Redis's cache writer hands Slotwise's
 * {@link ClusterCacheClear} the connection, whose {@code scan(options)} returns this
 * cursor, and only then can the scan know it is a clear.
 */
final class ClusterScanCursor implements Cursor<byte[]> {

	private final Scans scans;

	private @Nullable ClusterScan scan;

	private @Nullable List<byte[]> page;

	private int index;

	private long position;

	private boolean closed;

	private boolean ended;

	/**
	 * @param scans creates the scan when the cursor is first read or asked to clear
	 */
	ClusterScanCursor(Scans scans) {
		this.scans = scans;
	}

	/**
	 * Runs the scan as a cache clear: every key is removed where its walk found it, and
	 * those a walk could not remove (their slot moved; their node stopped answering) are
	 * handed to {@code delete}, routed as usual.
	 * @param delete deletes keys, returning how many it deleted
	 * @return the keys deleted
	 * @throws IllegalStateException when the cursor was read already
	 */
	long clearCache(ToLongFunction<byte[][]> delete) {
		if (this.scan != null || this.closed) {
			throw new IllegalStateException("A cursor that was read or closed cannot clear a cache");
		}
		ClusterScan clear = this.scans.create(true).start();
		this.scan = clear;
		long deleted = 0;
		try {
			for (List<byte[]> page = clear.takePage(); page != null; page = clear.takePage()) {
				byte[][] keys = page.toArray(new byte[0][]);
				byte[][] rest = clear.claimRemoved(keys);
				deleted += keys.length - rest.length;
				if (rest.length > 0) {
					deleted += delete.applyAsLong(rest);
				}
			}
			this.ended = true;
		}
		finally {
			close();
		}
		return deleted;
	}

	private ClusterScan scan() {
		ClusterScan scan = this.scan;
		if (scan == null) {
			scan = this.scans.create(false).start();
			this.scan = scan;
		}
		return scan;
	}

	@Override
	public boolean hasNext() {
		if (this.closed) {
			throw new InvalidDataAccessApiUsageException("Cannot access a closed cursor");
		}
		if (this.page != null && this.index < this.page.size()) {
			return true;
		}
		if (this.ended) {
			return false;
		}
		this.page = scan().takePage();
		this.index = 0;
		this.ended = this.page == null;
		return !this.ended;
	}

	@Override
	public byte[] next() {
		if (!hasNext()) {
			throw new NoSuchElementException("The cluster-wide scan has no more keys");
		}
		byte[] key = this.page.get(this.index++);
		this.position++;
		return key;
	}

	@Override
	public CursorId getId() {
		return (this.ended || this.closed) ? CursorId.initial() : CursorId.of(this.position + 1);
	}

	@Override
	@Deprecated
	public long getCursorId() {
		return Long.parseUnsignedLong(getId().getCursorId());
	}

	@Override
	public boolean isClosed() {
		return this.closed;
	}

	@Override
	public long getPosition() {
		return this.position;
	}

	@Override
	public void close() {
		if (!this.closed) {
			this.closed = true;
			ClusterScan scan = this.scan;
			if (scan != null) {
				scan.close();
			}
		}
	}

	/**
	 * Creates the cursor's scan, not started.
	 */
	@FunctionalInterface
	interface Scans {

		/**
		 * Creates the scan.
		 * @param cacheClear whether a cache clear runs it (it removes keys where they
		 * were found)
		 * @return the scan
		 */
		ClusterScan create(boolean cacheClear);

	}

}

package dev.slotwise.internal.keyspace;

import java.util.List;
import java.util.NoSuchElementException;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.data.redis.core.Cursor;

/**
 * A {@link Cursor} over a {@link ClusterScan}: {@link #hasNext()} waits for the walks' next key; {@link #close()}
 * stops every walk. Its id is {@code 0} once the scan ended and otherwise a number that only says it goes on: there is
 * no single server cursor to resume from.
 */
final class ClusterScanCursor implements Cursor<byte[]>, RemovingScan {

	private final ClusterScan scan;

	private @Nullable List<byte[]> page;

	private int index;

	private long position;

	private boolean closed;

	private boolean ended;

	ClusterScanCursor(ClusterScan scan) {
		this.scan = scan;
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
		this.page = this.scan.takePage();
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
	public byte[][] claimRemoved(byte[][] keys) {
		return this.scan.claimRemoved(keys);
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
			this.scan.close();
		}
	}

}

package dev.slotwise.multikey;

import java.util.Collection;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

import org.springframework.dao.DataAccessResourceFailureException;

/**
 * A cross-slot multi-key command failed on one or more nodes, or did not finish in time. The whole call fails:
 * no partial result is returned. For a failed {@code mSet}, {@code del} or {@code unlink}, slots on other nodes
 * may have been written.
 */
public class MultiKeyException extends DataAccessResourceFailureException {

	private static final int LISTED_SLOTS = 16;

	private final String what;

	private final Set<String> nodes;

	private final SortedSet<Integer> slots;

	/**
	 * Creates an exception.
	 * @param what what failed, e.g. {@code "MGET failed"}
	 * @param nodes the nodes involved, as {@code host:port}
	 * @param slots the slots whose keys were not (all) processed
	 * @param cause the cause, if any
	 */
	public MultiKeyException(String what, Collection<String> nodes, Collection<Integer> slots,
			@Nullable Throwable cause) {
		super(message(what, nodes, slots, cause), cause);
		this.what = what;
		this.nodes = Set.copyOf(nodes);
		this.slots = new TreeSet<>(slots);
	}

	private static String message(String what, Collection<String> nodes, Collection<Integer> slots,
			@Nullable Throwable cause) {
		SortedSet<Integer> sorted = new TreeSet<>(slots);
		String listed = sorted.stream().limit(LISTED_SLOTS).map(String::valueOf).collect(Collectors.joining(", "));
		String more = (sorted.size() > LISTED_SLOTS) ? " and " + (sorted.size() - LISTED_SLOTS) + " more" : "";
		String because = (cause != null && cause.getMessage() != null) ? ": " + cause.getMessage() : "";
		return what + " on node(s) " + new TreeSet<>(nodes) + " for slot(s) [" + listed + more + "]" + because;
	}

	public String what() {
		return this.what;
	}

	/**
	 * Returns the nodes the failure concerns.
	 * @return {@code host:port} of each node
	 */
	public Set<String> getNodes() {
		return this.nodes;
	}

	/**
	 * Returns the slots whose keys were not (all) processed.
	 * @return the slots, ascending
	 */
	public SortedSet<Integer> getSlots() {
		return this.slots;
	}

}

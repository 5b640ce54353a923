package dev.slotwise.multikey;

import java.util.Collection;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * The details every {@link MultiKeyFailure} keeps, and the message built from them.
 *
 * @param what what failed
 * @param nodes the nodes involved
 * @param slots the slots not (all) processed
 */
record FailureDetails(String what, Set<String> nodes, SortedSet<Integer> slots) {

	private static final int LISTED_SLOTS = 16;

	static FailureDetails of(String what, Collection<String> nodes, Collection<Integer> slots) {
		return new FailureDetails(what, Set.copyOf(nodes), new TreeSet<>(slots));
	}

	FailureDetails {
		slots = java.util.Collections.unmodifiableSortedSet(slots);
	}

	String message(@Nullable Throwable cause) {
		String listed = this.slots.stream().limit(LISTED_SLOTS).map(String::valueOf).collect(Collectors.joining(", "));
		String more = (this.slots.size() > LISTED_SLOTS) ? " and " + (this.slots.size() - LISTED_SLOTS) + " more" : "";
		String because = (cause != null && cause.getMessage() != null) ? ": " + cause.getMessage() : "";
		return this.what + " on node(s) " + new TreeSet<>(this.nodes) + " for slot(s) [" + listed + more + "]"
				+ because;
	}

}

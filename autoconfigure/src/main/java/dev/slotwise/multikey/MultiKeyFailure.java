package dev.slotwise.multikey;

import java.util.Set;
import java.util.SortedSet;

/**
 * What every failure of a cross-slot multi-key command carries besides its type: which
 * command failed, on which nodes, and for which slots. The exceptions themselves are of
 * the types Spring Data Redis translates the same failure to, so that code catching
 * {@code QueryTimeoutException} or {@code RedisConnectionFailureException} works with
 * Slotwise as without it:
 * <ul>
 * <li>{@link MultiKeyTimeoutException}, a {@code QueryTimeoutException}: the call did not
 * end within its timeout;</li>
 * <li>{@link MultiKeyConnectionFailureException}, a
 * {@code RedisConnectionFailureException}: a node could not be reached or its connection
 * broke;</li>
 * <li>{@link MultiKeySystemException}, a {@code RedisSystemException} (over Lettuce), and
 * {@link MultiKeyApiUsageException}, an {@code InvalidDataAccessApiUsageException} (over
 * Jedis): a node answered with an error reply, or redirects ran out;</li>
 * <li>{@link MultiKeyException}, a {@code DataAccessResourceFailureException}: anything
 * else (no node serves a slot, the call was cancelled or interrupted, the Jedis multi-key
 * executor is saturated or shut down).</li>
 * </ul>
 * The whole call fails: no partial result is returned. For a failed {@code mSet},
 * {@code del} or {@code unlink}, slots on other nodes may have been written.
 */
public sealed interface MultiKeyFailure permits MultiKeyApiUsageException, MultiKeyConnectionFailureException,
		MultiKeyException, MultiKeySystemException, MultiKeyTimeoutException {

	/**
	 * Returns what failed, without the nodes and slots.
	 * @return e.g. {@code "MGET timed out after 400 ms"}
	 */
	default String what() {
		return failureDetails().what();
	}

	/**
	 * Returns the nodes the failure concerns.
	 * @return {@code host:port} of each node
	 */
	default Set<String> getNodes() {
		return failureDetails().nodes();
	}

	/**
	 * Returns the slots whose keys were not (all) processed.
	 * @return the slots, ascending
	 */
	default SortedSet<Integer> getSlots() {
		return failureDetails().slots();
	}

	/**
	 * Returns the details behind {@link #what()}, {@link #getNodes()} and
	 * {@link #getSlots()}, so that each exception keeps one field rather than three
	 * getters. Internal: the type is package-private, and the interface is sealed to the
	 * five exceptions above; read the details through the getters.
	 * @return the details
	 */
	FailureDetails failureDetails();

}

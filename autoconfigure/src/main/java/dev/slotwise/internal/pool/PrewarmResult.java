package dev.slotwise.internal.pool;

import java.util.List;
import java.util.Map;

/**
 * What a pre-warm did.
 *
 * @param warmed the nodes ({@code host:port}) whose pools now hold at least min-idle
 * connections
 * @param failed the nodes that could not be reached, with the error
 */
record PrewarmResult(List<String> warmed, Map<String, Exception> failed) {

	public PrewarmResult {
		warmed = List.copyOf(warmed);
		failed = Map.copyOf(failed);
	}

}

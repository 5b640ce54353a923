package dev.slotwise.internal.topology;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToIntFunction;

/**
 * The order in which a refresh tries nodes: uniformly random within a tier, lower tiers
 * first. Tiers let a refresh prefer replicas and healthy nodes without ever pinning
 * itself to one node.
 */
final class RefreshOrder {

	/** Replicas when they are preferred, otherwise every node not marked as failing. */
	static final int PREFERRED = 0;

	/** Healthy nodes of the role that is not preferred. */
	static final int FALLBACK = 1;

	/**
	 * Nodes the last topology marked as failing: tried only when nothing else answers.
	 */
	static final int LAST_RESORT = 2;

	private RefreshOrder() {
	}

	static <T> List<T> shuffled(Collection<T> candidates, ToIntFunction<T> tier) {
		TreeMap<Integer, List<T>> tiers = new TreeMap<>();
		for (T candidate : candidates) {
			tiers.computeIfAbsent(tier.applyAsInt(candidate), (key) -> new ArrayList<>()).add(candidate);
		}
		List<T> order = new ArrayList<>(candidates.size());
		for (List<T> nodes : tiers.values()) {
			// A fresh uniform permutation per refresh: every node of a tier is equally
			// likely to be asked first, so many clients spread their refreshes instead of
			// all hitting the first node of some fixed list.
			Collections.shuffle(nodes, ThreadLocalRandom.current());
			order.addAll(nodes);
		}
		return order;
	}

}

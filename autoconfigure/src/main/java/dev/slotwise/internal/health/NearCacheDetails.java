package dev.slotwise.internal.health;

import java.util.LinkedHashMap;
import java.util.Map;

import dev.slotwise.internal.nearcache.NearCacheRuntime;
import org.jspecify.annotations.Nullable;

/**
 * The near cache's part of the health details, from what its tracking holds (no command
 * is sent):
 * <ul>
 * <li>{@code state}: {@code tracking} (every node's invalidation link is ready),
 * {@code partial} (some are not: the reads of their shards go to Redis until they are),
 * {@code starting} (no link yet: tracking starts with the first connection), or
 * {@code refused};</li>
 * <li>{@code refused}: why the servers refused tracking, when they did (the near cache is
 * then off);</li>
 * <li>{@code links}: each node's link ({@code host:port}, masters and replicas):
 * {@code ready}, {@code connecting}, {@code down};</li>
 * <li>{@code entries}: what the cache holds.</li>
 * </ul>
 */
final class NearCacheDetails {

	private NearCacheDetails() {
	}

	static Map<String, Object> of(NearCacheRuntime runtime) {
		Map<String, String> links = runtime.links();
		@Nullable String refused = runtime.refused();
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("state", state(links, refused));
		if (refused != null) {
			details.put("refused", refused);
		}
		details.put("links", links);
		details.put("entries", runtime.cache().size());
		return details;
	}

	private static String state(Map<String, String> links, @Nullable String refused) {
		if (refused != null) {
			return "refused";
		}
		if (links.isEmpty()) {
			return "starting";
		}
		return links.values().stream().allMatch("ready"::equals) ? "tracking" : "partial";
	}

}

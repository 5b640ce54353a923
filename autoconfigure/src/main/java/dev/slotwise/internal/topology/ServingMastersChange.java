package dev.slotwise.internal.topology;

import java.util.List;

import org.springframework.data.redis.connection.RedisClusterNode;

/**
 * What a topology refresh found changed among the masters that serve slots.
 *
 * @param added masters serving slots now that served none in the previous topology (a
 * master added and given slots, a replica promoted)
 * @param removed masters that served slots in the previous topology and serve none now
 * (failed over, demoted, or emptied by a resharding)
 */
public record ServingMastersChange(List<RedisClusterNode> added, List<RedisClusterNode> removed) {

	public ServingMastersChange {
		added = List.copyOf(added);
		removed = List.copyOf(removed);
	}

}

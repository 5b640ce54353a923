package dev.slotwise.internal.topology;

import java.util.List;

import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * While an asked node suspects a master that serves slots, a refresh that found nothing
 * new keeps the back-off at its first step instead of doubling it (issue 19: a fleet's
 * recovery went from 6 s to 10.7 s when the refresh that saw only the suspicion doubled
 * the wait before the promotion).
 */
class LettuceSuspicionBackOffTests {

	private static final Partitions HEALTHY = parse("a 127.0.0.1:7000@17000 master - 0 0 1 connected 0-8191",
			"b 127.0.0.1:7001@17001 master - 0 0 2 connected 8192-16383",
			"c 127.0.0.1:7002@17002 slave a 0 0 1 connected");

	@Test
	void unchangedRefreshesDoubleTheWaitWhenNothingIsSuspected() {
		assertThat(SamplingRedisClusterClient.nextStep(1, true, false)).isEqualTo(2);
		assertThat(SamplingRedisClusterClient.nextStep(3, true, false)).isEqualTo(4);
	}

	@Test
	void aSuspicionKeepsTheWaitAtItsFirstStep() {
		assertThat(SamplingRedisClusterClient.nextStep(1, true, true)).isEqualTo(1);
		assertThat(SamplingRedisClusterClient.nextStep(4, true, true)).isEqualTo(1);
	}

	@Test
	void aSuspectedMasterThatServesSlotsIsASuspicion() {
		Partitions view = parse("a 127.0.0.1:7000@17000 master,fail? - 0 0 1 connected 0-8191",
				"b 127.0.0.1:7001@17001 master - 0 0 2 connected 8192-16383",
				"c 127.0.0.1:7002@17002 slave a 0 0 1 connected");
		assertThat(PartitionViews.suspects(view, HEALTHY)).isTrue();
		assertThat(PartitionViews.suspects(HEALTHY, HEALTHY)).isFalse();
	}

	@Test
	void aFailureTheKeptViewAlreadyShowsIsNoSuspicion() {
		// A master with no replica stays failed: the wait must be free to grow for as
		// long as it is down.
		Partitions failed = parse("a 127.0.0.1:7000@17000 master,fail - 0 0 1 connected 0-8191",
				"b 127.0.0.1:7001@17001 master - 0 0 2 connected 8192-16383");
		assertThat(PartitionViews.suspects(failed, failed)).isFalse();
		assertThat(PartitionViews.suspects(failed, HEALTHY)).isTrue();
	}

	@Test
	void aSuspectedReplicaOrAMasterWithoutSlotsIsNoSuspicion() {
		Partitions view = parse("a 127.0.0.1:7000@17000 master,fail? - 0 0 1 connected",
				"b 127.0.0.1:7001@17001 master - 0 0 2 connected 0-16383",
				"c 127.0.0.1:7002@17002 slave,fail? b 0 0 1 connected");
		assertThat(PartitionViews.suspects(view, view)).isFalse();
	}

	private static Partitions parse(String... lines) {
		return ClusterPartitionParser.parse(String.join("\n", List.of(lines)));
	}

}

package dev.slotwise.internal.topology;

import java.time.Duration;
import java.util.List;

import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The refresh options and argument checks of {@link LettuceTopology}.
 */
class LettuceTopologyTests {

	@Test
	void periodicRefreshIsSetAndAdaptiveTriggersStayOn() {
		ClusterTopologyRefreshOptions options = LettuceTopology.refreshOptions(ClusterTopologyRefreshOptions.create(),
				Duration.ofSeconds(60));
		assertThat(options.isPeriodicRefreshEnabled()).isTrue();
		assertThat(options.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(60));
		assertThat(options.getAdaptiveRefreshTriggers()).containsExactlyInAnyOrder(RefreshTrigger.values());
	}

	@Test
	void zeroPeriodTurnsPeriodicRefreshOff() {
		ClusterTopologyRefreshOptions base = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(5))
			.build();
		assertThat(LettuceTopology.refreshOptions(base, Duration.ZERO).isPeriodicRefreshEnabled()).isFalse();
	}

	@Test
	void nullPeriodKeepsTheConfiguredOne() {
		ClusterTopologyRefreshOptions base = ClusterTopologyRefreshOptions.builder()
			.enablePeriodicRefresh(Duration.ofSeconds(7))
			.build();
		ClusterTopologyRefreshOptions options = LettuceTopology.refreshOptions(base, null);
		assertThat(options.isPeriodicRefreshEnabled()).isTrue();
		assertThat(options.getRefreshPeriod()).isEqualTo(Duration.ofSeconds(7));
	}

	@Test
	void otherSettingsAreKept() {
		ClusterTopologyRefreshOptions base = ClusterTopologyRefreshOptions.builder()
			.disableAdaptiveRefreshTrigger(RefreshTrigger.PERSISTENT_RECONNECTS)
			.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(9))
			.dynamicRefreshSources(false)
			.closeStaleConnections(false)
			.refreshTriggersReconnectAttempts(3)
			.build();
		ClusterTopologyRefreshOptions options = LettuceTopology.refreshOptions(base, Duration.ofSeconds(60));
		assertThat(options.getAdaptiveRefreshTriggers()).doesNotContain(RefreshTrigger.PERSISTENT_RECONNECTS)
			.contains(RefreshTrigger.MOVED_REDIRECT);
		assertThat(options.getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(9));
		assertThat(options.useDynamicRefreshSources()).isFalse();
		assertThat(options.isCloseStaleConnections()).isFalse();
		assertThat(options.getRefreshTriggersReconnectAttempts()).isEqualTo(3);
	}

	@Test
	void samplingClientRejectsZeroRefreshSources() {
		assertThatIllegalArgumentException()
			.isThrownBy(
					() -> LettuceTopology.samplingClient(null, List.of(), 0,
							new TopologySettings(Duration.ofSeconds(5), Duration.ofSeconds(1), true,
									Duration.ofSeconds(1), TopologyObserver.NONE)))
			.withMessageContaining("'refreshSources'");
	}

	@Test
	void binomialBoundsForTheUniformityTestAreWideEnoughAndNarrowEnough() {
		BinomialBounds bounds = BinomialBounds.of(600, 6, 1e-6);
		// Expected 100 per node; a node always asked (600) or never asked (0) is far
		// outside.
		assertThat(bounds.lower()).isBetween(40, 70);
		assertThat(bounds.upper()).isBetween(130, 160);
	}

}

package dev.slotwise.benchmarks.soak;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link FaultLog}: which regressions a master kill explains, which errors fall inside a
 * fault's window.
 */
class FaultLogTests {

	private static final long S = 1_000_000_000L;

	@Test
	void aKillRightAfterAWriteMayHaveLostIt() {
		FaultLog log = new FaultLog();
		log.start("kill", "", 10 * S).endNanos = 14 * S;
		assertThat(log.killCouldHaveLost(9 * S, 9 * S + S / 2, 20 * S)).isTrue();
	}

	@Test
	void aWriteAcknowledgedAfterTheKillWasNotLostByIt() {
		FaultLog log = new FaultLog();
		log.start("kill", "", 10 * S).endNanos = 14 * S;
		// The late write of issue #21: the newer value was acknowledged by the node that
		// took over.
		assertThat(log.killCouldHaveLost(12 * S, 12 * S + S / 100, 20 * S)).isFalse();
	}

	@Test
	void onlyAKillLosesWrites() {
		FaultLog log = new FaultLog();
		log.start("failover", "", 10 * S).endNanos = 11 * S;
		assertThat(log.killCouldHaveLost(9 * S, 10 * S - 1, 20 * S)).isFalse();
	}

	@Test
	void anErrorCountsForTenSecondsAfterTheFaultEnded() {
		FaultLog log = new FaultLog();
		log.start("pause", "", 10 * S).endNanos = 12 * S;
		assertThat(log.insideWindow(21 * S, 21 * S + 1, 10 * S)).isTrue();
		assertThat(log.insideWindow(23 * S, 23 * S + 1, 10 * S)).isFalse();
		assertThat(log.insideWindow(9 * S, 9 * S + S / 2, 10 * S)).isFalse();
		// An operation that started before the fault and ended in it is the fault's.
		assertThat(log.insideWindow(9 * S, 10 * S + 1, 10 * S)).isTrue();
	}

	@Test
	void aFaultStillGoingKeepsItsWindowOpen() {
		FaultLog log = new FaultLog();
		log.start("kill", "", 10 * S);
		assertThat(log.insideWindow(100 * S, 100 * S + 1, 10 * S)).isTrue();
	}

}

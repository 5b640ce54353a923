package dev.slotwise.internal.metrics;

import dev.slotwise.internal.keyspace.ScanObserver;
import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.multikey.MultiKeyObserver;
import dev.slotwise.internal.pipeline.PipelineObserver;
import dev.slotwise.internal.routing.RedirectKind;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The binders whose meters live per registry ({@link MultiKeyMeters},
 * {@link PipelineMeters}, {@link KeyspaceMeters}) hand out one observer per client, which
 * records in every registry bound, before or after it was handed out.
 */
class RegistryMeterBindersTests {

	private final MeterRegistry early = new SimpleMeterRegistry();

	private final MeterRegistry late = new SimpleMeterRegistry();

	@Test
	void multiKeyObserverRecordsInRegistriesBoundBeforeAndAfterItWasHandedOut() {
		MultiKeyMeters meters = new MultiKeyMeters();
		meters.bindTo(this.early);
		MultiKeyObserver observer = meters.forClient("jedis");
		meters.bindTo(this.late);
		assertThat(meters.forClient("jedis")).isSameAs(observer);
		observer.called(MultiKeyCommand.MGET, 12, true, 1_000_000);
		observer.called(MultiKeyCommand.MGET, 3, false, 2_000_000);
		observer.redirected(RedirectKind.ASK);
		for (MeterRegistry registry : new MeterRegistry[] { this.early, this.late }) {
			assertThat(registry.get(MultiKeyMeters.CALLS)
				.tags("client", "jedis", "command", "mget", "outcome", "success")
				.timer()
				.count()).isEqualTo(1);
			assertThat(registry.get(MultiKeyMeters.CALLS)
				.tags("client", "jedis", "command", "mget", "outcome", "failure")
				.timer()
				.count()).isEqualTo(1);
			assertThat(registry.get(MultiKeyMeters.KEYS).tags("command", "mget").summary().totalAmount()).isEqualTo(15);
			assertThat(registry.get(MultiKeyMeters.REDIRECTS).tags("type", "ask").counter().count()).isEqualTo(1);
			assertThat(registry.get(MultiKeyMeters.REDIRECTS).tags("type", "moved").counter().count()).isZero();
		}
	}

	@Test
	void multiKeyObserversOfTwoClientsRecordApart() {
		MultiKeyMeters meters = new MultiKeyMeters();
		meters.bindTo(this.early);
		meters.forClient("jedis").called(MultiKeyCommand.DEL, 2, true, 1);
		meters.forClient("lettuce").called(MultiKeyCommand.DEL, 5, true, 1);
		assertThat(
				this.early.get(MultiKeyMeters.KEYS).tags("client", "jedis", "command", "del").summary().totalAmount())
			.isEqualTo(2);
		assertThat(
				this.early.get(MultiKeyMeters.KEYS).tags("client", "lettuce", "command", "del").summary().totalAmount())
			.isEqualTo(5);
	}

	@Test
	void pipelineObserverRecordsInEveryRegistryBound() {
		PipelineMeters meters = new PipelineMeters();
		PipelineObserver observer = meters.forClient("lettuce");
		meters.bindTo(this.early);
		meters.bindTo(this.late);
		observer.closed(10, 3, PipelineObserver.COMMAND_ERROR, 5_000);
		observer.redirected(RedirectKind.MOVED);
		for (MeterRegistry registry : new MeterRegistry[] { this.early, this.late }) {
			assertThat(registry.get(PipelineMeters.PIPELINES)
				.tags("client", "lettuce", "outcome", "command_error")
				.timer()
				.count()).isEqualTo(1);
			assertThat(registry.get(PipelineMeters.PIPELINES).tags("outcome", "success").timer().count()).isZero();
			assertThat(registry.get(PipelineMeters.COMMANDS).summary().totalAmount()).isEqualTo(10);
			assertThat(registry.get(PipelineMeters.NODES).summary().totalAmount()).isEqualTo(3);
			assertThat(registry.get(PipelineMeters.REDIRECTS).tags("type", "moved").counter().count()).isEqualTo(1);
		}
	}

	@Test
	void scanObserverRecordsInEveryRegistryBound() {
		KeyspaceMeters meters = new KeyspaceMeters();
		ScanObserver observer = meters.forClient("jedis");
		meters.bindTo(this.early);
		meters.bindTo(this.late);
		observer.scanned(100, 7, 2, ScanObserver.Outcome.CLOSED, 1_000);
		observer.cleared(40, 1_000);
		for (MeterRegistry registry : new MeterRegistry[] { this.early, this.late }) {
			assertThat(registry.get(KeyspaceMeters.SCANS).tags("client", "jedis", "outcome", "closed").timer().count())
				.isEqualTo(1);
			assertThat(registry.get(KeyspaceMeters.SCANS).tags("outcome", "complete").timer().count()).isZero();
			assertThat(registry.get(KeyspaceMeters.SCANNED).counter().count()).isEqualTo(100);
			assertThat(registry.get(KeyspaceMeters.DUPLICATES).counter().count()).isEqualTo(7);
			assertThat(registry.get(KeyspaceMeters.RESTARTS).counter().count()).isEqualTo(2);
			assertThat(registry.get(KeyspaceMeters.CLEARS).timer().count()).isEqualTo(1);
			assertThat(registry.get(KeyspaceMeters.DELETED).counter().count()).isEqualTo(40);
		}
	}

}

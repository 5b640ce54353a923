package dev.slotwise.internal.observation;

import java.util.ArrayList;
import java.util.List;

import dev.slotwise.internal.multikey.MultiKeyCommand;
import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.routing.NodeAddress;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Names, keys and nesting of Slotwise's observations, and nothing allocated when the
 * registry observes nothing.
 */
class SlotwiseObservationConventionTests {

	@Test
	void sizeBucketsArePowersOfTen() {
		assertThat(SlotwiseObservationConvention.bucket(1)).isEqualTo("1-10");
		assertThat(SlotwiseObservationConvention.bucket(10)).isEqualTo("1-10");
		assertThat(SlotwiseObservationConvention.bucket(11)).isEqualTo("11-100");
		assertThat(SlotwiseObservationConvention.bucket(1000)).isEqualTo("101-1000");
		assertThat(SlotwiseObservationConvention.bucket(10_000)).isEqualTo("1001-10000");
		assertThat(SlotwiseObservationConvention.bucket(10_001)).isEqualTo("10001+");
		assertThat(SlotwiseObservationConvention.bucket(Integer.MAX_VALUE)).isEqualTo("10001+");
	}

	@Test
	void aCallAndItsBatchCarryLowCardinalityKeysOnly() {
		List<Observation.Context> stopped = new ArrayList<>();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		Observed call = new MultiKeyObservations(registry).forClient("jedis").start(MultiKeyCommand.MSET, 250);
		Observed batch = call.batch(new NodeAddress("10.0.0.1", 7000), 80);
		batch.end(Observed.SUCCESS, null);
		call.end(Observed.FAILURE, new IllegalStateException("boom"));
		assertThat(stopped).hasSize(2);
		Observation.Context batchContext = stopped.get(0);
		Observation.Context callContext = stopped.get(1);
		assertThat(callContext.getName()).isEqualTo("slotwise.multikey");
		assertThat(callContext.getContextualName()).isEqualTo("mset");
		assertThat(callContext.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(
				KeyValue.of("db.system", "redis"), KeyValue.of("command", "mset"), KeyValue.of("client", "jedis"),
				KeyValue.of("outcome", "failure"), KeyValue.of("keys", "101-1000"));
		assertThat(callContext.getError()).hasMessage("boom");
		assertThat(batchContext.getName()).isEqualTo("slotwise.multikey.batch");
		assertThat(batchContext.getLowCardinalityKeyValues()).contains(KeyValue.of("net.sock.peer.addr", "10.0.0.1"),
				KeyValue.of("net.sock.peer.port", "7000"), KeyValue.of("outcome", "success"));
		assertThat(batchContext.getHighCardinalityKeyValue("slotwise.size").getValue()).isEqualTo("80");
		assertThat(batchContext.getParentObservation().getContextView()).isSameAs(callContext);
	}

	@Test
	void aTransactionTakesItsSizeAndOutcomeWhenItEnds() {
		List<Observation.Context> stopped = new ArrayList<>();
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler(new ObservationHandler<>() {

			@Override
			public void onStop(Observation.Context context) {
				stopped.add(context);
			}

			@Override
			public boolean supportsContext(Observation.Context context) {
				return true;
			}

		});
		TransactionObservations observations = new TransactionObservations(registry);
		Observed committed = observations.forClient("lettuce").start();
		committed.resize(12);
		committed.end("committed", null);
		Observed empty = observations.forClient("jedis").start();
		empty.end("discarded", null);
		assertThat(stopped).hasSize(2);
		assertThat(stopped.get(0).getName()).isEqualTo("slotwise.transaction");
		assertThat(stopped.get(0).getContextualName()).isEqualTo("transaction");
		assertThat(stopped.get(0).getLowCardinalityKeyValues()).containsExactlyInAnyOrder(
				KeyValue.of("db.system", "redis"), KeyValue.of("command", "transaction"),
				KeyValue.of("client", "lettuce"), KeyValue.of("outcome", "committed"),
				KeyValue.of("commands", "11-100"));
		assertThat(stopped.get(0).getHighCardinalityKeyValue("slotwise.size").getValue()).isEqualTo("12");
		assertThat(stopped.get(1).getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "discarded"),
				KeyValue.of("commands", "0"));
	}

	@Test
	void aRegistryWithoutHandlersGetsNothingStarted() {
		ObservationRegistry registry = ObservationRegistry.create();
		assertThat(new MultiKeyObservations(registry).forClient("lettuce").start(MultiKeyCommand.MGET, 10))
			.isSameAs(Observed.NONE);
		assertThat(new PipelineObservations(ObservationRegistry.NOOP).forClient("jedis").start(10))
			.isSameAs(Observed.NONE);
		assertThat(new TransactionObservations(registry).forClient("jedis").start()).isSameAs(Observed.NONE);
	}

}

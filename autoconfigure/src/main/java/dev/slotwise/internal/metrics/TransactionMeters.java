package dev.slotwise.internal.metrics;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

import dev.slotwise.internal.transaction.TransactionObserver;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Micrometer meters for transactions on a cluster, one {@link TransactionObserver} per
 * client:
 * <ul>
 * <li>{@value #TRANSACTIONS} (counter): transactions ended; tags {@code client} and
 * {@code outcome} ({@code committed}, {@code conflict} when a watched key changed,
 * {@code discarded}, {@code refused} when a key of another slot or a command with no
 * place in a transaction was refused before sending, {@code slot_moved},
 * {@code failed});</li>
 * <li>{@value #COMMANDS} (distribution summary): commands queued per transaction; tag
 * {@code client}.</li>
 * </ul>
 * A {@link MeterBinder}: counts made before Spring Boot binds the registry are kept and
 * show once it does.
 */
public final class TransactionMeters extends CountingMeterBinder<TransactionMeters.ClientObserver>
		implements TransactionObserver.Source {

	/** Name of the transactions counter. */
	public static final String TRANSACTIONS = "slotwise.transactions";

	/** Name of the queued commands summary. */
	public static final String COMMANDS = "slotwise.transactions.commands";

	@Override
	protected ClientObserver newObserver(String client) {
		return new ClientObserver(client);
	}

	static final class ClientObserver implements TransactionObserver, Counting {

		private final String client;

		private final Map<Outcome, LongAdder> counts = new EnumMap<>(Outcome.class);

		private final List<DistributionSummary> commands = new CopyOnWriteArrayList<>();

		ClientObserver(String client) {
			this.client = client;
			for (Outcome outcome : Outcome.values()) {
				this.counts.put(outcome, new LongAdder());
			}
		}

		@Override
		public void register(MeterRegistry registry) {
			this.counts.forEach((outcome, count) -> FunctionCounter.builder(TRANSACTIONS, count, LongAdder::sum)
				.description("Transactions on the cluster, by how they ended")
				.tag("client", this.client)
				.tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
				.register(registry));
			this.commands.add(DistributionSummary.builder(COMMANDS)
				.description("Commands queued per transaction on the cluster")
				.baseUnit("commands")
				.tag("client", this.client)
				.register(registry));
		}

		@Override
		public void ended(Outcome outcome, int commands, long nanos) {
			this.counts.get(outcome).increment();
			for (DistributionSummary summary : this.commands) {
				summary.record(commands);
			}
		}

	}

}

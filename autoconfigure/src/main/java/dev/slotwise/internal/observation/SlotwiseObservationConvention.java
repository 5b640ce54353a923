package dev.slotwise.internal.observation;

import java.util.EnumMap;
import java.util.Map;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * Names Slotwise's observations and gives them their keys. The low-cardinality keys (they
 * become timer tags) are: {@code db.system} ({@code redis}), {@code command},
 * {@code client}, {@code outcome}; on a call, pipeline or transaction {@code keys} or
 * {@code commands}, a size bucket ({@code 1-10}, {@code 11-100}, {@code 101-1000},
 * {@code 1001-10000}, {@code 10001+}; {@code 0} for a transaction that queued nothing);
 * on a node batch {@code net.sock.peer.addr} and {@code net.sock.peer.port} (Lettuce's
 * keys for the peer); on a near cache read sent to Redis {@code result} ({@code miss})
 * and {@code keys}. The exact size is a high-cardinality key ({@code slotwise.size}); no
 * key is ever named.
 */
public class SlotwiseObservationConvention implements ObservationConvention<SlotwiseObservationContext> {

	private static final String[] BUCKETS = { "1-10", "11-100", "101-1000", "1001-10000", "10001+" };

	private static final Map<SlotwiseObservationKind, SlotwiseObservationConvention> DEFAULTS = defaults();

	private final SlotwiseObservationKind kind;

	/**
	 * Creates the convention of one kind of operation.
	 * @param kind the kind, which names the observation
	 */
	public SlotwiseObservationConvention(SlotwiseObservationKind kind) {
		if (kind == null) {
			throw new IllegalArgumentException("'kind' must not be null");
		}
		this.kind = kind;
	}

	/**
	 * Returns the convention Slotwise uses for a kind unless the registry's configuration
	 * supplies another.
	 * @param kind the kind
	 * @return the convention
	 */
	public static SlotwiseObservationConvention defaultFor(SlotwiseObservationKind kind) {
		return DEFAULTS.get(kind);
	}

	@Override
	public String getName() {
		return this.kind.observationName();
	}

	@Override
	public String getContextualName(SlotwiseObservationContext context) {
		String name = context.getCommand();
		return context.getKind().isBatch() ? name + " batch" : name;
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(SlotwiseObservationContext context) {
		KeyValues values = KeyValues.of("db.system", "redis", "command", context.getCommand(), "client",
				context.getClient(), "outcome", context.getOutcome());
		return switch (context.getKind()) {
			case MULTIKEY -> values.and("keys", bucket(context.getSize()));
			case PIPELINE -> values.and("commands", bucket(context.getSize()));
			case TRANSACTION -> values.and("commands", (context.getSize() == 0) ? "0" : bucket(context.getSize()));
			// Only reads that missed are observed: a hit stays a memory read, counted by
			// slotwise.near-cache.reads.
			case NEAR_CACHE -> values.and("result", "miss", "keys", bucket(context.getSize()));
			case MULTIKEY_BATCH, PIPELINE_BATCH -> values.and("net.sock.peer.addr", String.valueOf(context.getHost()),
					"net.sock.peer.port", Integer.toString(context.getPort()));
		};
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(SlotwiseObservationContext context) {
		return KeyValues.of("slotwise.size", Integer.toString(context.getSize()));
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof SlotwiseObservationContext slotwise && slotwise.getKind() == this.kind;
	}

	/**
	 * Returns the size bucket of a call or pipeline: a power-of-ten range, so that the
	 * key stays low-cardinality.
	 * @param size the number of keys or commands
	 * @return the bucket
	 */
	static String bucket(int size) {
		int bucket = 0;
		for (long limit = 10; size > limit && bucket < BUCKETS.length - 1; limit *= 10) {
			bucket++;
		}
		return BUCKETS[bucket];
	}

	private static Map<SlotwiseObservationKind, SlotwiseObservationConvention> defaults() {
		Map<SlotwiseObservationKind, SlotwiseObservationConvention> defaults = new EnumMap<>(
				SlotwiseObservationKind.class);
		for (SlotwiseObservationKind kind : SlotwiseObservationKind.values()) {
			defaults.put(kind, new SlotwiseObservationConvention(kind));
		}
		return defaults;
	}

}

package dev.slotwise.internal.observation;

/**
 * The operations Slotwise observes, each with its observation name.
 */
public enum SlotwiseObservationKind {

	/**
	 * A cross-slot multi-key call ({@code mGet}, {@code mSet}, {@code del},
	 * {@code unlink}, {@code exists}).
	 */
	MULTIKEY("slotwise.multikey"),

	/**
	 * One node batch of a multi-key call: its per-slot commands for one node, pipelined.
	 */
	MULTIKEY_BATCH("slotwise.multikey.batch"),

	/**
	 * One {@code closePipeline()} of a cluster pipeline ({@code executePipelined} over
	 * Jedis).
	 */
	PIPELINE("slotwise.pipeline"),

	/** One node batch of a pipeline. */
	PIPELINE_BATCH("slotwise.pipeline.batch"),

	/**
	 * One transaction on a cluster: from {@code multi()} (or its first {@code watch}) to
	 * its end.
	 */
	TRANSACTION("slotwise.transaction"),

	/**
	 * A template read of keys under {@code slotwise.near-cache.key-prefixes} that the
	 * near cache did not answer from memory and sent to Redis (hits are counted by the
	 * meters, not observed).
	 */
	NEAR_CACHE("slotwise.near-cache");

	private final String observationName;

	SlotwiseObservationKind(String observationName) {
		this.observationName = observationName;
	}

	/**
	 * Returns the observation's name (the timer's, when observations are also metered).
	 * @return the name
	 */
	public String observationName() {
		return this.observationName;
	}

	/**
	 * Whether this is a node batch, the child of a call or pipeline.
	 * @return {@code true} for a node batch
	 */
	public boolean isBatch() {
		return this == MULTIKEY_BATCH || this == PIPELINE_BATCH;
	}

}

package dev.slotwise.internal.observation;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/**
 * What an observation of Slotwise knows: the operation (a multi-key call, a pipeline, one
 * node batch of either, or a transaction), the client, its size, and how it ended.
 */
public final class SlotwiseObservationContext extends Observation.Context {

	private final SlotwiseObservationKind kind;

	private final String command;

	private final String client;

	private volatile int size;

	private final @Nullable String host;

	private final int port;

	private volatile String outcome = "unknown";

	SlotwiseObservationContext(SlotwiseObservationKind kind, String command, String client, int size,
			@Nullable String host, int port) {
		this.kind = kind;
		this.command = command;
		this.client = client;
		this.size = size;
		this.host = host;
		this.port = port;
	}

	/**
	 * Returns what is observed.
	 * @return the kind of operation
	 */
	public SlotwiseObservationKind getKind() {
		return this.kind;
	}

	/**
	 * Returns the command, lower case ({@code mget}, {@code mset}, {@code del},
	 * {@code unlink}, {@code exists}), {@code pipeline}, or {@code transaction}.
	 * @return the command
	 */
	public String getCommand() {
		return this.command;
	}

	/**
	 * Returns the client, {@code jedis} or {@code lettuce}.
	 * @return the client
	 */
	public String getClient() {
		return this.client;
	}

	/**
	 * Returns the number of keys of a multi-key call, or of commands of a pipeline or
	 * node batch, or of commands a transaction queued (0 until it ends).
	 * @return the size
	 */
	public int getSize() {
		return this.size;
	}

	void setSize(int size) {
		this.size = size;
	}

	/**
	 * Returns the host of the node a batch went to.
	 * @return the host, or {@code null} for a call or pipeline
	 */
	public @Nullable String getHost() {
		return this.host;
	}

	/**
	 * Returns the port of the node a batch went to.
	 * @return the port, or {@code 0} for a call or pipeline
	 */
	public int getPort() {
		return this.port;
	}

	/**
	 * Returns how the operation ended: {@code success}, {@code failure},
	 * {@code command_error} (a pipeline in which some commands failed), {@code cancelled}
	 * (a node batch abandoned because its call ended), a transaction's outcome
	 * ({@code committed}, {@code conflict}, {@code discarded}, {@code refused},
	 * {@code slot_moved}, {@code failed}), or {@code unknown} while it runs.
	 * @return the outcome
	 */
	public String getOutcome() {
		return this.outcome;
	}

	void setOutcome(String outcome) {
		this.outcome = outcome;
	}

}

package dev.slotwise.internal.cluster;

import java.time.Duration;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.multikey.AskingConnection;
import dev.slotwise.internal.multikey.MultiKeySettings;

/**
 * What the features of one Lettuce connection factory share: the factory, the limits of
 * node batches, the connections opened for {@code ASK} redirects and the rate-limited
 * partition refresh that the features' node failures and redirects ask for.
 */
public final class LettuceClusterRuntime {

	private final SlotwiseLettuceConnectionFactory factory;

	private final MultiKeySettings settings;

	private final AskingConnection asking;

	private final LettucePartitionRefresher refresher;

	LettuceClusterRuntime(SlotwiseLettuceConnectionFactory factory, MultiKeySettings settings,
			Duration minRefreshInterval) {
		this.factory = factory;
		this.settings = settings;
		this.asking = new AskingConnection(factory::getNativeClient);
		this.refresher = new LettucePartitionRefresher(factory, minRefreshInterval);
	}

	/**
	 * Returns the connection factory, not yet started.
	 * @return the factory
	 */
	public SlotwiseLettuceConnectionFactory factory() {
		return this.factory;
	}

	/**
	 * Returns the limits of node batches ({@code slotwise.multikey.*}).
	 * @return the settings
	 */
	public MultiKeySettings settings() {
		return this.settings;
	}

	/**
	 * Returns the connections opened on demand for {@code ASK} redirects, one per node.
	 * @return the asking connections
	 */
	public AskingConnection asking() {
		return this.asking;
	}

	/**
	 * Asks for a partition refresh on behalf of work routed at {@code routedAt}:
	 * rate-limited, single-flight, and nothing when the client applied a topology change
	 * since then.
	 * @param routedAt when the work was routed, from {@link System#nanoTime()}
	 */
	public void refreshTopology(long routedAt) {
		this.refresher.refresh(routedAt);
	}

}

package dev.slotwise.internal.routing;

import java.util.Locale;

/**
 * Why a server refused a command of one slot and where to send it instead.
 */
public enum RedirectKind {

	/**
	 * {@code MOVED slot host:port}: the slot lives on another node for good; the topology
	 * is stale.
	 */
	MOVED,

	/**
	 * {@code ASK slot host:port}: the slot is being migrated; send this command, after
	 * {@code ASKING}, there.
	 */
	ASK,

	/**
	 * {@code TRYAGAIN}: the slot is being migrated and the command's keys are split
	 * between the two nodes; send the keys one by one.
	 */
	TRYAGAIN;

	private final String tag = name().toLowerCase(Locale.ROOT);

	/**
	 * Returns the kind in lower case, as meters tag it.
	 * @return the tag value, e.g. {@code moved}
	 */
	public String tag() {
		return this.tag;
	}

}

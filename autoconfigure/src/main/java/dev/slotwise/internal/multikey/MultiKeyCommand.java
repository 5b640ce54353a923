package dev.slotwise.internal.multikey;

import java.util.Locale;

/**
 * The multi-key commands the engine runs across slots. Each is sent once per slot (keys
 * of other slots are refused with {@code CROSSSLOT}) and, when a slot migration splits a
 * slot's keys ({@code TRYAGAIN}), once per key: the same command with one key, so that
 * the caller sees what the multi-key command would have answered (a one-key {@code MGET}
 * of a hash answers nil, where {@code GET} would fail with {@code WRONGTYPE}).
 */
public enum MultiKeyCommand {

	/**
	 * {@code MGET}: values in the caller's order, null for missing keys and for keys of
	 * another type.
	 */
	MGET(Reply.VALUES),

	/** {@code MSET}: atomic per slot only. */
	MSET(Reply.STATUS),

	/** {@code DEL}: the number of keys removed. */
	DEL(Reply.INTEGER),

	/** {@code UNLINK}: the number of keys removed. */
	UNLINK(Reply.INTEGER),

	/** {@code EXISTS}: the number of existing keys, each repetition counted. */
	EXISTS(Reply.INTEGER);

	private final Reply reply;

	private final String tag;

	MultiKeyCommand(Reply reply) {
		this.reply = reply;
		this.tag = name().toLowerCase(Locale.ROOT);
	}

	/**
	 * Returns the command's name in lower case, as meters tag it.
	 * @return the tag value, e.g. {@code mget}
	 */
	public String tag() {
		return this.tag;
	}

	/**
	 * Returns what the server answers to the command.
	 * @return the kind of reply
	 */
	public Reply reply() {
		return this.reply;
	}

	/**
	 * Returns whether each key is followed by its value in the arguments.
	 */
	boolean withValues() {
		return this == MSET;
	}

	/**
	 * What a command's successful reply is, which tells a transport how to decode it and
	 * the engine how to gather it.
	 */
	public enum Reply {

		/** An array of bulk strings, one per key, nil for a missing key. */
		VALUES,

		/** A status line, {@code OK}. */
		STATUS,

		/** An integer, summed over the slots. */
		INTEGER

	}

}

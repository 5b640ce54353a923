package dev.slotwise.multikey;

import java.util.Locale;

/**
 * The multi-key commands the engine runs, each sent per slot.
 */
enum MultiKeyOp {

	/** {@code MGET}: values in the caller's order, null for missing keys. */
	MGET(false),

	/** {@code MSET}: atomic per slot only. */
	MSET(true),

	/** {@code DEL}: the number of keys removed. */
	DEL(false),

	/** {@code UNLINK}: the number of keys removed. */
	UNLINK(false),

	/** {@code EXISTS}: the number of existing keys, each repetition counted. */
	EXISTS(false);

	private final boolean withValues;

	private final String command;

	MultiKeyOp(boolean withValues) {
		this.withValues = withValues;
		this.command = name().toLowerCase(Locale.ROOT);
	}

	/**
	 * The command's name in lower case, as meters tag it.
	 */
	String command() {
		return this.command;
	}

	/**
	 * Whether each key is followed by its value in the arguments.
	 */
	boolean withValues() {
		return this.withValues;
	}

	/**
	 * The per-key command used when a multi-key command must be split (a slot being migrated answers
	 * {@code TRYAGAIN} to multi-key commands whose keys are partly moved).
	 */
	String singleKeyCommand() {
		return switch (this) {
			case MGET -> "GET";
			case MSET -> "SET";
			default -> name();
		};
	}

}

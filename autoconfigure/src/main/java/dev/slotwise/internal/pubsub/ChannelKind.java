package dev.slotwise.internal.pubsub;

/**
 * What a subscribed name is, which decides the command that subscribes it and the nodes
 * it is subscribed on.
 */
enum ChannelKind {

	/** A channel, {@code SUBSCRIBE}. */
	CHANNEL,

	/** A pattern, {@code PSUBSCRIBE}. */
	PATTERN,

	/** A sharded channel, {@code SSUBSCRIBE}, on the master owning its slot. */
	SHARD

}

package dev.slotwise.internal.pubsub;

import java.nio.charset.StandardCharsets;

/**
 * Tells keyspace and keyevent notification channels and patterns, which each master emits
 * for its own keys only, from ordinary ones, which a cluster {@code PUBLISH} delivers on
 * every node.
 */
final class KeyspaceChannels {

	private static final byte[] KEYSPACE = "__keyspace@".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] KEYEVENT = "__keyevent@".getBytes(StandardCharsets.US_ASCII);

	private static final byte[] ANY = "__key*".getBytes(StandardCharsets.US_ASCII);

	private KeyspaceChannels() {
	}

	/**
	 * Tells whether a channel or pattern names keyspace or keyevent notifications. Only
	 * names that say so in their literal prefix count ({@code __keyspace@0__:*},
	 * {@code __keyevent@*__:expired}, {@code __key*__:*}): a pattern such as {@code *}
	 * stays an ordinary one, subscribed on one node, since subscribing it on every master
	 * would deliver each ordinary message once per master.
	 * @param name the channel or pattern
	 * @return whether it is subscribed on every master
	 */
	static boolean isKeyspace(byte[] name) {
		return startsWith(name, KEYSPACE) || startsWith(name, KEYEVENT) || startsWith(name, ANY);
	}

	private static boolean startsWith(byte[] name, byte[] prefix) {
		if (name.length < prefix.length) {
			return false;
		}
		for (int i = 0; i < prefix.length; i++) {
			if (name[i] != prefix[i]) {
				return false;
			}
		}
		return true;
	}

}

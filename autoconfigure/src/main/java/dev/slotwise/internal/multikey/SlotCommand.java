package dev.slotwise.internal.multikey;

import java.util.ArrayList;
import java.util.List;

import dev.slotwise.internal.routing.Chunks;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.RedirectKind;
import dev.slotwise.internal.routing.SlotGroup;
import dev.slotwise.internal.routing.SlotPlan;
import org.jspecify.annotations.Nullable;

/**
 * One command of a multi-key call: some keys of one slot, where to send them (null: the
 * slot's owner in the current topology), how often they were redirected and the hops so
 * far, for the error that names them when there are too many.
 *
 * @param command the command
 * @param slot the slot of every key it carries
 * @param positions the positions of its keys in the caller's key array
 * @param target the node to send it to, or {@code null} to route it by slot
 * @param asking whether {@code ASKING} must precede it
 * @param attempt how many redirects brought it here
 * @param trail the hops so far, each ending in {@code ", "}
 */
record SlotCommand(MultiKeyCommand command, int slot, int[] positions, @Nullable NodeAddress target, boolean asking,
		int attempt, String trail) {

	/**
	 * Plans a call: one command per slot, a slot with more than {@code maxKeysPerCommand}
	 * keys split into several, so that no single command makes the server build an
	 * unbounded reply.
	 * @param command the command
	 * @param keys the keys in the caller's order
	 * @param maxKeysPerCommand the cap on keys per command
	 * @return the commands, in ascending slot order
	 */
	static List<SlotCommand> plan(MultiKeyCommand command, byte[][] keys, int maxKeysPerCommand) {
		SlotPlan plan = SlotPlan.of(keys);
		List<SlotCommand> commands = new ArrayList<>(plan.groups().size());
		for (SlotGroup group : plan.groups()) {
			int[] positions = group.positions();
			if (positions.length <= maxKeysPerCommand) {
				// The common case, and at 1,000 random keys nearly one group per key: no
				// chunk list per group.
				commands.add(new SlotCommand(command, group.slot(), positions, null, false, 0, ""));
				continue;
			}
			for (int[] chunk : Chunks.of(positions, maxKeysPerCommand)) {
				commands.add(new SlotCommand(command, group.slot(), chunk, null, false, 0, ""));
			}
		}
		return commands;
	}

	/**
	 * Returns this command sent again where a {@code MOVED} or {@code ASK} points.
	 */
	SlotCommand redirected(NodeAddress from, String reply, Redirect redirect) {
		return new SlotCommand(this.command, this.slot, this.positions, redirect.target(),
				redirect.kind() == RedirectKind.ASK, this.attempt + 1, hop(from, reply));
	}

	/**
	 * Returns this command as one command per key, sent to the same node again after
	 * {@code TRYAGAIN}: single-key commands are always served (or redirected) at once, so
	 * no waiting is needed.
	 */
	List<SlotCommand> split(NodeAddress node, String reply) {
		String trail = hop(node, reply);
		List<SlotCommand> commands = new ArrayList<>(this.positions.length);
		for (int position : this.positions) {
			commands.add(new SlotCommand(this.command, this.slot, new int[] { position }, node, this.asking,
					this.attempt + 1, trail));
		}
		return commands;
	}

	/**
	 * Describes every hop of this command, the last one with the server's whole reply.
	 */
	String path(NodeAddress node, String reply) {
		return this.trail + this.command + ((this.asking) ? " (asking)" : "") + " at " + node + ": " + reply;
	}

	private String hop(NodeAddress node, String reply) {
		int end = reply.indexOf(' ');
		return path(node, (end < 0) ? reply : reply.substring(0, end)) + ", ";
	}

}

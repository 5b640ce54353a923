package dev.slotwise.internal.topology;

import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One batch of sources a Lettuce refresh asked together; identity-based so it can live in
 * a set while its answers arrive.
 */
final class RefreshAttempt {

	private final List<String> addresses;

	private final Set<String> answered = ConcurrentHashMap.newKeySet();

	private final long startNanos = System.nanoTime();

	RefreshAttempt(List<String> addresses) {
		this.addresses = addresses;
	}

	List<String> addresses() {
		return this.addresses;
	}

	Set<String> answered() {
		return this.answered;
	}

	long startNanos() {
		return this.startNanos;
	}

}

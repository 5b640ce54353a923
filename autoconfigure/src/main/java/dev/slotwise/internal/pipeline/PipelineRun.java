package dev.slotwise.internal.pipeline;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.IntFunction;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.pipeline.NodeReplay.Attempt;
import dev.slotwise.internal.routing.RedirectKind;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.exceptions.JedisAskDataException;

import org.springframework.data.redis.ClusterRedirectException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.RedisPipelineException;

/**
 * Runs the commands of one {@code closePipeline()}: splits them at cross-slot multi-key
 * commands (each runs on the multi-key engine, after the commands queued before it and
 * before those queued after it, so that a read sees the writes queued before it); groups
 * each stretch in between by master, replays the node groups in parallel; sends
 * redirected commands again on the node the server named, in issue order, until they
 * succeed or run out of redirects; and returns the results in issue order.
 */
final class PipelineRun {

	/**
	 * The first wait before retrying commands a slot answered {@code TRYAGAIN}; it
	 * doubles each round.
	 */
	private static final long TRYAGAIN_FIRST_PAUSE_MILLIS = 10;

	/** The longest wait before retrying {@code TRYAGAIN}. */
	private static final long TRYAGAIN_MAX_PAUSE_MILLIS = 200;

	private final JedisClusterPipelining pipelining;

	private final Function<Class<?>, Object> direct;

	private final List<QueuedCommand> commands;

	private final @Nullable Object[] outcomes;

	/**
	 * The masters the commands went to first (redirect targets not counted), for the
	 * nodes meter.
	 */
	private final Set<NodeAddress> nodes = new HashSet<>();

	/** The pipeline's observation, parent of one observation per node batch. */
	private Observed observed = Observed.NONE;

	PipelineRun(JedisClusterPipelining pipelining, Function<Class<?>, Object> direct, List<QueuedCommand> commands) {
		this.pipelining = pipelining;
		this.direct = direct;
		this.commands = commands;
		this.outcomes = new Object[commands.size()];
	}

	/**
	 * Runs the pipeline.
	 * @return the results in issue order, successful status commands left out as Spring
	 * Data Redis does
	 * @throws RedisPipelineException when commands failed: its results hold every other
	 * command's result, and the exception in each failed command's position
	 * @throws RedisConnectionFailureException when a node failed: names it and the
	 * commands left without a reply
	 */
	List<@Nullable Object> run() {
		long started = System.nanoTime();
		String outcome = PipelineObserver.FAILURE;
		Throwable thrown = null;
		this.observed = this.pipelining.observer().start(this.commands.size());
		try (Observed.Scope scope = this.observed.open()) {
			List<QueuedCommand> stretch = new ArrayList<>();
			for (QueuedCommand command : this.commands) {
				if (command.crossSlot()) {
					runOnNodes(stretch);
					stretch = new ArrayList<>();
					runOnEngine(command);
				}
				else {
					stretch.add(command);
				}
			}
			runOnNodes(stretch);
			List<@Nullable Object> results = new ArrayList<>(this.outcomes.length);
			Throwable firstFailure = null;
			for (Object result : this.outcomes) {
				if (result == NodeReplay.NO_RESULT) {
					continue;
				}
				if (result instanceof Throwable failure && firstFailure == null) {
					firstFailure = failure;
				}
				results.add(result);
			}
			if (firstFailure != null) {
				outcome = PipelineObserver.COMMAND_ERROR;
				throw new RedisPipelineException(
						(firstFailure instanceof Exception ex) ? ex : new IllegalStateException(firstFailure), results);
			}
			outcome = PipelineObserver.SUCCESS;
			return results;
		}
		catch (RuntimeException | Error ex) {
			thrown = ex;
			throw ex;
		}
		finally {
			this.pipelining.observer()
				.closed(this.commands.size(), this.nodes.size(), outcome, System.nanoTime() - started);
			this.observed.end(outcome, thrown);
		}
	}

	private void runOnEngine(QueuedCommand command) {
		try {
			this.outcomes[command.index()] = command.method()
				.invoke(this.direct.apply(command.group()), command.args());
		}
		catch (InvocationTargetException ex) {
			this.outcomes[command.index()] = ex.getCause();
		}
		catch (IllegalAccessException ex) {
			throw new IllegalStateException(ex);
		}
	}

	private void runOnNodes(List<QueuedCommand> stretch) {
		if (stretch.isEmpty()) {
			return;
		}
		IntFunction<@Nullable NodeAddress> router = this.pipelining.router();
		List<Attempt> attempts = new ArrayList<>(stretch.size());
		List<NodeAddress> targets = new ArrayList<>(stretch.size());
		for (QueuedCommand command : stretch) {
			NodeAddress node = router.apply(command.slot());
			if (node == null) {
				throw new RedisConnectionFailureException(
						"No master serves slot " + command.slot() + " of " + command.describe()
								+ "; no command of the pipeline's remaining " + stretch.size() + " was sent");
			}
			attempts.add(new Attempt(command, false));
			targets.add(node);
		}
		int round = 0;
		while (!attempts.isEmpty()) {
			Map<NodeAddress, List<Attempt>> byNode = new LinkedHashMap<>();
			for (int i = 0; i < attempts.size(); i++) {
				byNode.computeIfAbsent(targets.get(i), (node) -> new ArrayList<>()).add(attempts.get(i));
			}
			if (round == 0) {
				this.nodes.addAll(byNode.keySet());
			}
			send(byNode);
			List<Attempt> again = new ArrayList<>();
			List<NodeAddress> againTargets = new ArrayList<>();
			boolean moved = false;
			boolean tryAgain = false;
			for (int i = 0; i < attempts.size(); i++) {
				QueuedCommand command = attempts.get(i).command();
				Object outcome = this.outcomes[command.index()];
				if (round >= this.pipelining.maxRedirects()) {
					continue;
				}
				if (outcome instanceof ClusterRedirectException redirect) {
					boolean ask = redirect.getCause() instanceof JedisAskDataException;
					moved |= !ask;
					this.pipelining.observer().redirected(ask ? RedirectKind.ASK : RedirectKind.MOVED);
					again.add(new Attempt(command, ask));
					againTargets.add(new NodeAddress(redirect.getTargetHost(), redirect.getTargetPort()));
				}
				else if (outcome instanceof Exception ex && ex.getMessage() != null
						&& ex.getMessage().startsWith("TRYAGAIN")) {
					tryAgain = true;
					this.pipelining.observer().redirected(RedirectKind.TRYAGAIN);
					again.add(new Attempt(command, attempts.get(i).asking()));
					againTargets.add(targets.get(i));
				}
			}
			if (moved) {
				this.pipelining.invalidateTopology();
			}
			if (tryAgain) {
				pause(round);
			}
			attempts = again;
			targets = againTargets;
			round++;
		}
	}

	/**
	 * Replays each node's commands, the nodes in parallel (the first on the calling
	 * thread), and waits for all of them, so that no connection is still in use when the
	 * call returns.
	 */
	private void send(Map<NodeAddress, List<Attempt>> byNode) {
		Map<NodeAddress, CompletableFuture<@Nullable Object[]>> replies = new LinkedHashMap<>();
		Map.Entry<NodeAddress, List<Attempt>> onCaller = null;
		for (Map.Entry<NodeAddress, List<Attempt>> entry : byNode.entrySet()) {
			if (onCaller == null) {
				onCaller = entry;
				continue;
			}
			replies.put(entry.getKey(), CompletableFuture.supplyAsync(() -> replay(entry.getKey(), entry.getValue()),
					this.pipelining.executor()));
		}
		Map<NodeAddress, Throwable> failures = new LinkedHashMap<>();
		if (onCaller != null) {
			try {
				collect(onCaller.getValue(), replay(onCaller.getKey(), onCaller.getValue()));
			}
			catch (RuntimeException ex) {
				failures.put(onCaller.getKey(), ex);
			}
		}
		for (Map.Entry<NodeAddress, CompletableFuture<@Nullable Object[]>> reply : replies.entrySet()) {
			try {
				collect(byNode.get(reply.getKey()), reply.getValue().join());
			}
			catch (CompletionException ex) {
				failures.put(reply.getKey(), (ex.getCause() != null) ? ex.getCause() : ex);
			}
		}
		if (!failures.isEmpty()) {
			this.pipelining.invalidateTopology();
			throw nodeFailure(byNode, failures);
		}
	}

	private @Nullable Object[] replay(NodeAddress node, List<Attempt> attempts) {
		Observed batch = this.observed.batch(node, attempts.size());
		try {
			@Nullable Object[] replies = NodeReplay.run(this.pipelining.client(), node, attempts,
					this.pipelining.maxCommandsPerFlush());
			batch.end(Observed.SUCCESS, null);
			return replies;
		}
		catch (RuntimeException | Error ex) {
			batch.end(Observed.FAILURE, ex);
			throw ex;
		}
	}

	private void collect(List<Attempt> attempts, @Nullable Object[] replies) {
		for (int i = 0; i < attempts.size(); i++) {
			this.outcomes[attempts.get(i).command().index()] = replies[i];
		}
	}

	private static RedisConnectionFailureException nodeFailure(Map<NodeAddress, List<Attempt>> byNode,
			Map<NodeAddress, Throwable> failures) {
		StringBuilder message = new StringBuilder("Cluster pipeline failed; no result is returned.");
		Throwable first = null;
		for (Map.Entry<NodeAddress, Throwable> failure : failures.entrySet()) {
			List<Attempt> attempts = byNode.get(failure.getKey());
			StringJoiner names = new StringJoiner(", ");
			for (int i = 0; i < attempts.size() && i < 20; i++) {
				names.add(attempts.get(i).command().describe());
			}
			if (attempts.size() > 20) {
				names.add("… " + (attempts.size() - 20) + " more");
			}
			message.append(" Node ")
				.append(failure.getKey())
				.append(" failed (")
				.append(failure.getValue().getMessage())
				.append("): its ")
				.append(attempts.size())
				.append(" commands have no reply and may or may not have run: ")
				.append(names)
				.append('.');
			if (first == null) {
				first = failure.getValue();
			}
		}
		if (byNode.size() > failures.size()) {
			message.append(" The commands of the other ").append(byNode.size() - failures.size()).append(" nodes ran.");
		}
		return new RedisConnectionFailureException(message.toString(), first);
	}

	private static void pause(int round) {
		try {
			Thread.sleep(Math.min(TRYAGAIN_MAX_PAUSE_MILLIS, TRYAGAIN_FIRST_PAUSE_MILLIS << Math.min(round, 5)));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisConnectionFailureException("Interrupted while waiting to retry TRYAGAIN", null);
		}
	}

}

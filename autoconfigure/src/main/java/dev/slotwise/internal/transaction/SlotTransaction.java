package dev.slotwise.internal.transaction;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import dev.slotwise.internal.observed.Observed;
import dev.slotwise.internal.pipeline.CommandProxies;
import dev.slotwise.internal.transaction.NodeSessions.Session;
import dev.slotwise.internal.transaction.TransactionObserver.Outcome;
import org.jspecify.annotations.Nullable;

import org.springframework.dao.InvalidDataAccessApiUsageException;
import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisGeoCommands;
import org.springframework.data.redis.connection.RedisHashCommands;
import org.springframework.data.redis.connection.RedisHyperLogLogCommands;
import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisListCommands;
import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.data.redis.connection.RedisSetCommands;
import org.springframework.data.redis.connection.RedisStreamCommands;
import org.springframework.data.redis.connection.RedisStringCommands;
import org.springframework.data.redis.connection.RedisZSetCommands;

/**
 * A transaction bound to one slot: {@code multi()} waits for the first key (of a queued
 * command or of {@code watch}); its slot picks the master, on whose connection (a session
 * of the transaction's own) Spring Data Redis's standalone connection sends
 * {@code MULTI}, queues each command and converts the {@code EXEC} results. A key of
 * another slot is refused before anything more is sent, and the transaction is discarded.
 * An {@code EXEC} that fails because the slot moved while the commands were queued
 * ({@code MOVED}/{@code ASK} in reply to a queued command make the server answer
 * {@code EXECABORT}) throws a {@link TransientDataAccessResourceException}: nothing was
 * applied and the transaction may be retried. Queued commands are never sent again.
 */
final class SlotTransaction implements ClusterTransaction {

	private static final Map<Class<?>, Function<RedisConnection, Object>> GROUPS = Map.of(RedisStringCommands.class,
			RedisConnection::stringCommands, RedisHashCommands.class, RedisConnection::hashCommands,
			RedisListCommands.class, RedisConnection::listCommands, RedisSetCommands.class,
			RedisConnection::setCommands, RedisZSetCommands.class, RedisConnection::zSetCommands,
			RedisKeyCommands.class, RedisConnection::keyCommands, RedisHyperLogLogCommands.class,
			RedisConnection::hyperLogLogCommands, RedisGeoCommands.class, RedisConnection::geoCommands,
			RedisStreamCommands.class, RedisConnection::streamCommands, RedisScriptingCommands.class,
			RedisConnection::scriptingCommands);

	/**
	 * How many distinct keys an aborted {@code EXEC} probes to find out whether their
	 * slot moved.
	 */
	private static final int MAX_PROBED_KEYS = 16;

	private final NodeSessions sessions;

	private final BooleanSupplier pipelined;

	private final TransactionObserver observer;

	private final CommandProxies queueing = new CommandProxies(this::queue);

	private @Nullable Session session;

	private int slot = -1;

	private byte @Nullable [] slotKey;

	private boolean multi;

	private boolean watching;

	private int queued;

	private long startedAt;

	/**
	 * The observation from {@code multi()} to the end, {@link Observed#NONE} outside a
	 * transaction.
	 */
	private Observed observed = Observed.NONE;

	private final List<byte[]> keys = new ArrayList<>();

	/**
	 * @param sessions where the transaction's connection comes from
	 * @param pipelined whether the connection pipelines (a transaction cannot start then)
	 * @param observer sees each transaction start and end
	 */
	SlotTransaction(NodeSessions sessions, BooleanSupplier pipelined, TransactionObserver observer) {
		this.sessions = sessions;
		this.pipelined = pipelined;
		this.observer = observer;
	}

	@Override
	public void multi() {
		if (this.multi) {
			return;
		}
		if (this.pipelined.getAsBoolean()) {
			throw new InvalidDataAccessApiUsageException(
					"MULTI cannot be used inside a pipeline on a Redis Cluster: run the transaction outside it");
		}
		Session current = this.session;
		if (current == null) {
			this.startedAt = System.nanoTime();
		}
		// From MULTI on (a WATCH before it is timed by the meters only: a watch undone by
		// unwatch() is no transaction).
		this.observed = this.observer.start();
		if (current != null) {
			send(current, () -> current.connection().multi());
		}
		this.multi = true;
		this.queued = 0;
	}

	@Override
	public boolean isQueueing() {
		return this.multi;
	}

	@Override
	public <T> T commands(Class<T> group) {
		return this.queueing.get(group);
	}

	private @Nullable Object queue(Class<?> group, Object proxy, Method method, @Nullable Object @Nullable [] args)
			throws Throwable {
		if (method.getDeclaringClass() == Object.class) {
			return switch (method.getName()) {
				case "equals" -> args != null && proxy == args[0];
				case "hashCode" -> System.identityHashCode(proxy);
				default -> "Slotwise cluster transaction " + group.getSimpleName();
			};
		}
		String command = group.getSimpleName() + "." + method.getName();
		if (!this.multi) {
			throw new InvalidDataAccessApiUsageException(command + ": no transaction is queueing");
		}
		Function<RedisConnection, Object> standalone = GROUPS.get(group);
		if (standalone == null) {
			throw refuse(command + " cannot be part of a transaction on a Redis Cluster: its commands have no key "
					+ "to choose the slot by");
		}
		List<byte[]> commandKeys;
		int commandSlot;
		try {
			commandKeys = TransactionKeys.of(group, method, args);
			commandSlot = TransactionKeys.slotOf(commandKeys);
		}
		catch (TransactionKeys.CrossSlot ex) {
			throw refuse(command + " cannot be part of a transaction on a Redis Cluster: its " + ex.description()
					+ "; all keys of a transaction must hash to one slot (use a hash tag, e.g. {order:42}:items)");
		}
		catch (InvalidDataAccessApiUsageException ex) {
			throw refuse(command + " cannot be part of a transaction on a Redis Cluster: " + ex.getMessage());
		}
		if (commandSlot == -1 && this.session == null) {
			throw refuse(command + " cannot open a transaction on a Redis Cluster: it has no key to choose the slot's "
					+ "master by; queue a command with a key (or watch a key) first");
		}
		if (commandSlot != -1 && this.slot != -1 && commandSlot != this.slot) {
			throw refuse(command + " cannot be part of this transaction on a Redis Cluster: the transaction is bound "
					+ "to slot " + this.slot + " (key '" + TransactionKeys.display(this.slotKey) + "') and key '"
					+ TransactionKeys.display(commandKeys.get(0)) + "' hashes to slot " + commandSlot
					+ "; all keys of a transaction must hash to one slot (use a hash tag, e.g. {order:42}:items)");
		}
		Session current = this.session;
		if (current == null) {
			Session opened = bind(commandSlot, commandKeys.get(0));
			send(opened, () -> opened.connection().multi());
			current = opened;
		}
		remember(commandKeys);
		Object commands = standalone.apply(current.connection());
		try {
			Object result = method.invoke(commands, args);
			this.queued++;
			return result;
		}
		catch (InvocationTargetException ex) {
			Throwable cause = ex.getCause();
			if (!(cause instanceof IllegalArgumentException)
					&& !(cause instanceof InvalidDataAccessApiUsageException)) {
				// The node failed or the connection is in doubt: end here, never resend.
				end(Outcome.FAILED, false, cause);
			}
			throw cause;
		}
	}

	@Override
	public @Nullable List<@Nullable Object> exec() {
		if (!this.multi) {
			throw new InvalidDataAccessApiUsageException("No ongoing transaction; did you forget to call multi?");
		}
		Session current = this.session;
		if (current == null) {
			// Nothing queued, nothing watched: what EXEC of an empty transaction returns.
			end(Outcome.COMMITTED, true, null);
			return new ArrayList<>();
		}
		List<@Nullable Object> results;
		try {
			results = current.connection().exec();
		}
		catch (RuntimeException ex) {
			RuntimeException moved = slotMoved(current, ex);
			if (moved != null) {
				this.sessions.invalidateTopology();
				end(Outcome.SLOT_MOVED, false, moved);
				throw moved;
			}
			end(Outcome.FAILED, false, ex);
			throw ex;
		}
		end((results == null || (results.isEmpty() && this.queued > 0)) ? Outcome.CONFLICT : Outcome.COMMITTED, true,
				null);
		return results;
	}

	@Override
	public void discard() {
		if (!this.multi) {
			throw new InvalidDataAccessApiUsageException("No ongoing transaction; did you forget to call multi?");
		}
		Session current = this.session;
		if (current == null) {
			end(Outcome.DISCARDED, true, null);
			return;
		}
		try {
			current.connection().discard();
		}
		catch (RuntimeException ex) {
			end(Outcome.FAILED, false, ex);
			throw ex;
		}
		end(Outcome.DISCARDED, true, null);
	}

	@Override
	public void watch(byte[]... keys) {
		if (this.multi) {
			throw new InvalidDataAccessApiUsageException("WATCH is not supported when a transaction is active");
		}
		List<byte[]> watched = List.of(keys);
		int watchedSlot;
		try {
			watchedSlot = TransactionKeys.slotOf(watched);
		}
		catch (TransactionKeys.CrossSlot ex) {
			throw refuse("WATCH on a Redis Cluster needs keys of one slot: " + ex.description()
					+ " (use a hash tag, e.g. {order:42}:items)");
		}
		if (watchedSlot == -1) {
			throw new InvalidDataAccessApiUsageException("WATCH needs at least one key");
		}
		if (this.slot != -1 && watchedSlot != this.slot) {
			throw refuse("WATCH on a Redis Cluster needs keys of one slot: keys of slot " + this.slot + " (key '"
					+ TransactionKeys.display(this.slotKey) + "') are watched already and key '"
					+ TransactionKeys.display(keys[0]) + "' hashes to slot " + watchedSlot);
		}
		Session current = this.session;
		if (current == null) {
			this.startedAt = System.nanoTime();
			current = bind(watchedSlot, keys[0]);
		}
		Session watching = current;
		send(watching, () -> watching.connection().watch(keys));
		remember(watched);
		this.watching = true;
	}

	@Override
	public void unwatch() {
		Session current = this.session;
		if (current == null) {
			return;
		}
		send(current, () -> current.connection().unwatch());
		this.watching = false;
		if (!this.multi) {
			release(current, true);
		}
	}

	@Override
	public void close() {
		if (this.session != null || this.multi) {
			// A MULTI or WATCH left open: the connection is closed rather than cleaned,
			// the server forgets both.
			end(Outcome.DISCARDED, false, null);
		}
	}

	private Session bind(int slot, byte[] key) {
		Session opened = this.sessions.open(slot, key);
		this.session = opened;
		this.slot = slot;
		this.slotKey = key;
		return opened;
	}

	private void remember(List<byte[]> commandKeys) {
		for (byte[] key : commandKeys) {
			if (this.keys.size() >= MAX_PROBED_KEYS) {
				return;
			}
			this.keys.add(key);
		}
	}

	/**
	 * Runs a step on the session; a failure ends the transaction (the connection is
	 * closed, nothing is resent).
	 */
	private void send(Session session, Runnable step) {
		try {
			step.run();
		}
		catch (RuntimeException ex) {
			end(Outcome.FAILED, false, ex);
			throw ex;
		}
	}

	/**
	 * Ends the transaction after a refused call, before anything more is sent.
	 */
	private InvalidDataAccessApiUsageException refuse(String message) {
		boolean open = this.session != null;
		InvalidDataAccessApiUsageException refused = new InvalidDataAccessApiUsageException(
				message + (open ? "; the transaction was discarded, nothing was applied" : "; nothing was sent"));
		end(Outcome.REFUSED, false, refused);
		return refused;
	}

	private void end(Outcome outcome, boolean reusable, @Nullable Throwable failure) {
		Session current = this.session;
		boolean reported = this.multi || current != null;
		this.multi = false;
		this.watching = false;
		if (current != null) {
			release(current, reusable);
		}
		if (reported) {
			this.observer.ended(outcome, this.queued, System.nanoTime() - this.startedAt);
		}
		Observed ending = this.observed;
		this.observed = Observed.NONE;
		ending.resize(this.queued);
		ending.end(outcome.tag(), failure);
		this.queued = 0;
	}

	private void release(Session current, boolean reusable) {
		this.session = null;
		this.slot = -1;
		this.slotKey = null;
		this.keys.clear();
		this.watching = false;
		current.release(reusable);
	}

	/**
	 * Tells an {@code EXEC} aborted because the slot moved while queueing from any other
	 * failure: the server answers {@code EXECABORT} to both. The redirect is in the
	 * failure itself when the client kept the queued replies (Jedis adds them as
	 * suppressed exceptions, Lettuce reports the first queued error instead of the
	 * {@code EXECABORT}); otherwise the transaction's keys are probed on the node, which
	 * answers {@code MOVED}/{@code ASK}/{@code TRYAGAIN} for a key it no longer serves.
	 */
	private @Nullable RuntimeException slotMoved(Session current, RuntimeException failure) {
		String redirect = redirect(failure);
		if (redirect == null && !mentions(failure, "EXECABORT")) {
			return null;
		}
		for (int i = 0; redirect == null && i < this.keys.size(); i++) {
			try {
				current.connection().keyCommands().exists(this.keys.get(i));
			}
			catch (RuntimeException ex) {
				redirect = redirect(ex);
			}
		}
		if (redirect == null) {
			return null;
		}
		return new TransientDataAccessResourceException("Slot " + this.slot + " moved away from " + current.node()
				+ " while the transaction's commands were queued (" + redirect + "): the transaction was discarded, "
				+ "nothing was applied; retry it", failure);
	}

	private static @Nullable String redirect(Throwable failure) {
		for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
			String found = redirectIn(t.getMessage());
			if (found != null) {
				return found;
			}
			for (Throwable suppressed : t.getSuppressed()) {
				found = redirectIn(suppressed.getMessage());
				if (found != null) {
					return found;
				}
			}
		}
		return null;
	}

	private static @Nullable String redirectIn(@Nullable String message) {
		if (message == null) {
			return null;
		}
		for (String reply : new String[] { "MOVED ", "ASK ", "TRYAGAIN" }) {
			int at = message.indexOf(reply);
			if (at >= 0) {
				return message.substring(at).strip();
			}
		}
		return null;
	}

	private static boolean mentions(Throwable failure, String text) {
		for (Throwable t = failure; t != null; t = (t.getCause() != t) ? t.getCause() : null) {
			String message = t.getMessage();
			if (message != null && message.toUpperCase(Locale.ROOT).contains(text)) {
				return true;
			}
		}
		return false;
	}

}

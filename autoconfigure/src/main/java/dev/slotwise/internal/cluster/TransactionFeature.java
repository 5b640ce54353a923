package dev.slotwise.internal.cluster;

import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

import dev.slotwise.connection.SlotwiseLettuceConnectionFactory;
import dev.slotwise.internal.transaction.ClusterTransaction;
import dev.slotwise.internal.transaction.JedisTransactions;
import dev.slotwise.internal.transaction.LettuceTransactions;
import dev.slotwise.internal.transaction.ScriptSlotCheck;
import dev.slotwise.internal.transaction.TransactionObserver;

import org.springframework.data.redis.connection.RedisScriptingCommands;
import org.springframework.util.Assert;

/**
 * Transactions on a cluster ({@code MULTI}/{@code EXEC}/{@code WATCH} for keys of one
 * slot, which Spring Data Redis refuses there) and scripts whose keys span slots refused
 * before they are sent ({@code slotwise.transactions.enabled}). The transactions run on a
 * connection of their own to the slot's master
 * ({@code dev.slotwise.internal.transaction}).
 */
public final class TransactionFeature {

	/** The feature's name. */
	public static final String NAME = "transactions";

	private TransactionFeature() {
	}

	/**
	 * Returns the feature over Jedis: transactions on connections borrowed from Jedis's
	 * node pools, a broken one given back on the executor's releaser thread (the executor
	 * created when the first one breaks).
	 * @param observers supplies what sees each transaction, asked when the feature starts
	 * @return the feature
	 */
	public static JedisClusterFeature jedis(Supplier<TransactionObserver> observers) {
		Assert.notNull(observers, "'observers' must not be null");
		return JedisClusterFeature.of(NAME, (runtime) -> {
			TransactionObserver observer = observers.get();
			Executor releaser = releaser(runtime);
			return (connection) -> part(JedisTransactions.create(runtime.client(), runtime.topologyProvider(), releaser,
					connection::isPipelinedOrQueueing, observer));
		});
	}

	/**
	 * Returns the feature over Lettuce: transactions on dedicated connections to the
	 * slot's master (never the shared connection), closed when the factory stops.
	 * @param observers supplies what sees each transaction, asked when the feature starts
	 * @return the feature
	 */
	public static LettuceClusterFeature lettuce(Supplier<TransactionObserver> observers) {
		Assert.notNull(observers, "'observers' must not be null");
		return LettuceClusterFeature.of(NAME, (runtime) -> {
			TransactionObserver observer = observers.get();
			SlotwiseLettuceConnectionFactory factory = runtime.factory();
			LettuceTransactions transactions = new LettuceTransactions(factory::getNativeClient);
			factory.addStoppingListener(NAME, (stopping) -> transactions.stop());
			// Read when a connection is made: the factory's timeout is settled by then.
			return (connection) -> part(transactions.create(Duration.ofMillis(factory.getTimeout()),
					connection::isPipelinedOrQueueing, observer));
		});
	}

	/**
	 * The executor's releaser thread, looked up when a connection first breaks: an
	 * application whose transactions never break a connection does not create the
	 * executor. Looked up while the application closes, the executor may be refused: the
	 * connection is then handled as on a releaser that shut down.
	 */
	private static Executor releaser(JedisClusterRuntime runtime) {
		return (task) -> {
			Executor releaser;
			try {
				releaser = runtime.executor().releaser();
			}
			catch (RuntimeException ex) {
				throw new RejectedExecutionException("No releaser thread: the application is closing", ex);
			}
			releaser.execute(task);
		};
	}

	/**
	 * The connection's part. Its "pipelined" test is asked only while no transaction
	 * queues, when "pipelined or queueing" is "pipelined".
	 */
	private static ConnectionPart part(ClusterTransaction transaction) {
		ScriptSlotCheck scripts = new ScriptSlotCheck();
		return new ConnectionPart() {

			@Override
			public ClusterTransaction transaction() {
				return transaction;
			}

			@Override
			public RedisScriptingCommands scripting(RedisScriptingCommands next) {
				return scripts.wrap(next);
			}

			@Override
			public void close() {
				transaction.close();
			}

		};
	}

}

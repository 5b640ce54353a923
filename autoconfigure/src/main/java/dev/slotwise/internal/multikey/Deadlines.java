package dev.slotwise.internal.multikey;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The timer that ends asynchronous multi-key calls at their deadline, so that no thread waits for a reply: one
 * daemon thread for the whole JVM, started by the first scheduled deadline and ended after 10 seconds without one
 * (so nothing lingers once the application stops calling). Cancelled deadlines leave the queue at once.
 */
final class Deadlines {

	private static final ScheduledThreadPoolExecutor TIMER = timer();

	private Deadlines() {
	}

	/**
	 * Runs a task after a delay, unless cancelled first.
	 * @param task the task, which must be quick (it runs on the timer's only thread)
	 * @param delayNanos the delay; zero or less runs it as soon as possible
	 * @return the handle that cancels it
	 */
	static ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
		return TIMER.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
	}

	private static ScheduledThreadPoolExecutor timer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "slotwise-multikey-deadline");
			thread.setDaemon(true);
			return thread;
		});
		timer.setRemoveOnCancelPolicy(true);
		timer.setKeepAliveTime(10, TimeUnit.SECONDS);
		timer.allowCoreThreadTimeOut(true);
		return timer;
	}

}

package dev.slotwise.benchmarks.gate;

/**
 * Input the gate cannot judge: a missing or unreadable file, JSON that is not a JMH
 * result, nothing in common. {@link Compare} exits with 2 and this message.
 */
public class BadInputException extends RuntimeException {

	/**
	 * Creates the exception.
	 * @param message what is wrong, naming the file
	 */
	public BadInputException(String message) {
		super(message);
	}

}

package dev.slotwise.connection;

/**
 * Callback that customizes a {@link SlotwiseLettuceConnectionFactory} before it starts,
 * typically by setting one of its hooks. Beans of this type are applied in order.
 */
@FunctionalInterface
public interface SlotwiseLettuceConnectionFactoryCustomizer {

	/**
	 * Customizes the factory.
	 * @param factory the factory, not yet started
	 */
	void customize(SlotwiseLettuceConnectionFactory factory);

}

package dev.slotwise.connection;

/**
 * Callback that customizes a {@link SlotwiseJedisConnectionFactory} before it starts,
 * typically by setting one of its hooks. Beans of this type are applied in order.
 */
@FunctionalInterface
public interface SlotwiseJedisConnectionFactoryCustomizer {

	/**
	 * Customizes the factory.
	 * @param factory the factory, not yet started
	 */
	void customize(SlotwiseJedisConnectionFactory factory);

}

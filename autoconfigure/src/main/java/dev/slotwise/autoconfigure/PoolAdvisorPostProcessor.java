package dev.slotwise.autoconfigure;

import java.util.function.Function;

import dev.slotwise.internal.pool.PoolAdvisor;
import dev.slotwise.internal.pool.PoolSettings;
import dev.slotwise.internal.pool.TunedPoolConfig;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The pool advisor's one place, the same for both clients: reviews the pool configuration
 * of each connection factory Spring Boot's Redis auto-configuration created, as it ends
 * up after every customizer ran, before the factory connects. Slotwise's own
 * configuration is reviewed with the property each value came from; one the application
 * put in its place is reviewed as it is. Factories the application declared itself are
 * left alone.
 *
 * @param <F> the connection factory type
 */
final class PoolAdvisorPostProcessor<F> implements BeanPostProcessor, BeanFactoryAware {

	private final Class<F> factoryType;

	private final String client;

	private final Function<F, @Nullable GenericObjectPoolConfig<?>> poolConfig;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	/**
	 * Creates an advisor for one client.
	 * @param factoryType the connection factory type of the client
	 * @param client the client's name in messages, {@code Jedis} or {@code Lettuce}
	 * @param poolConfig the pool configuration of a factory, {@code null} when it does
	 * not pool
	 */
	PoolAdvisorPostProcessor(Class<F> factoryType, String client,
			Function<F, @Nullable GenericObjectPoolConfig<?>> poolConfig) {
		this.factoryType = factoryType;
		this.client = client;
		this.poolConfig = poolConfig;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		if (this.factoryType.isInstance(bean) && beanFactory != null
				&& SpringBootConnectionFactoryReplacer.isDefinedBySpringBoot(beanFactory, beanName)) {
			GenericObjectPoolConfig<?> config = this.poolConfig.apply(this.factoryType.cast(bean));
			if (config instanceof TunedPoolConfig tuned) {
				PoolAdvisor.warn(tuned.getSettings(), this.client);
			}
			else if (config != null) {
				PoolAdvisor.warn(PoolSettings.of(config, "the application's " + this.client + " pool configuration"),
						this.client);
			}
		}
		return bean;
	}

}

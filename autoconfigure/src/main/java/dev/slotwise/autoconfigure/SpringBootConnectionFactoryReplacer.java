package dev.slotwise.autoconfigure;

import java.util.Optional;
import java.util.Set;

import dev.slotwise.internal.compat.FastPath;
import dev.slotwise.internal.compat.SpringBootInternals;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.thread.Threading;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.core.type.MethodMetadata;

/**
 * Base of the post-processors that put a Slotwise connection factory in place of the one
 * Spring Boot's Redis auto-configuration created, before it is initialized (and so before
 * it connects). Only a bean of exactly the given type whose definition comes from Spring
 * Boot's Redis auto-configuration is considered: a factory the application declared
 * itself, or a subclass of its own, is never touched.
 *
 * @param <F> the Spring Data Redis factory type
 */
abstract class SpringBootConnectionFactoryReplacer<F> implements BeanPostProcessor, BeanFactoryAware, EnvironmentAware {

	private static final Log logger = LogFactory.getLog(SpringBootConnectionFactoryReplacer.class);

	/**
	 * The classes whose bean methods create Spring Boot's connection factories, read in
	 * {@link SpringBootInternals}.
	 */
	private static final Set<String> BOOT_FACTORY_DECLARERS = bootFactoryDeclarers();

	private final Class<F> factoryType;

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	private @Nullable Environment environment;

	SpringBootConnectionFactoryReplacer(Class<F> factoryType) {
		this.factoryType = factoryType;
	}

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = (ConfigurableListableBeanFactory) beanFactory;
	}

	@Override
	public void setEnvironment(Environment environment) {
		this.environment = environment;
	}

	@Override
	public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		if (bean.getClass() != this.factoryType || beanFactory == null
				|| !isDefinedBySpringBoot(beanFactory, beanName)) {
			return bean;
		}
		return replace(this.factoryType.cast(bean), beanFactory);
	}

	/**
	 * Returns the bean to use instead of Spring Boot's factory.
	 * @param original the factory Spring Boot created, not yet initialized
	 * @param beanFactory the bean factory, to look up customizers lazily
	 * @return the replacement, or {@code original} to keep it
	 */
	protected abstract Object replace(F original, ConfigurableListableBeanFactory beanFactory);

	/**
	 * Returns the executor Spring Boot gives its factory when virtual threads are
	 * enabled; a replacement must carry it over because factories do not expose their
	 * executor.
	 * @return the executor, or empty when Spring Boot sets none
	 */
	protected Optional<AsyncTaskExecutor> springBootExecutor() {
		if (this.environment == null || !Threading.VIRTUAL.isActive(this.environment)) {
			return Optional.empty();
		}
		SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("redis-");
		executor.setVirtualThreads(true);
		return Optional.of(executor);
	}

	/**
	 * Returns whether a bean definition comes from Spring Boot's Redis
	 * auto-configuration.
	 * @param beanFactory the bean factory
	 * @param beanName the bean's name
	 * @return whether Spring Boot defined the bean
	 */
	static boolean isDefinedBySpringBoot(ConfigurableListableBeanFactory beanFactory, String beanName) {
		try {
			BeanDefinition definition = beanFactory.getMergedBeanDefinition(beanName);
			if (definition instanceof AnnotatedBeanDefinition annotated) {
				MethodMetadata factoryMethod = annotated.getFactoryMethodMetadata();
				return factoryMethod != null && BOOT_FACTORY_DECLARERS.contains(factoryMethod.getDeclaringClassName());
			}
			String factoryBean = definition.getFactoryBeanName();
			if (factoryBean == null) {
				return false;
			}
			BeanDefinition declarer = beanFactory.getMergedBeanDefinition(factoryBean);
			return declarer.getBeanClassName() != null && BOOT_FACTORY_DECLARERS.contains(declarer.getBeanClassName());
		}
		catch (NoSuchBeanDefinitionException ex) {
			return false;
		}
	}

	/**
	 * Returns the names of the classes whose bean methods create Spring Boot's Redis
	 * connection factories ({@link SpringBootInternals#connectionFactoryDeclarers()}).
	 * @return the class names; only the auto-configuration's, after one WARN, when Spring
	 * Boot's auto-configuration no longer imports its connection configurations
	 */
	static Set<String> bootFactoryDeclarers() {
		FastPath replacement = SpringBootInternals.factoryReplacement();
		if (!replacement.active()) {
			logger.warn("Slotwise does not recognise Spring Boot's Redis connection factory (" + replacement.problem()
					+ "). Spring Boot's factory is left in place, without Slotwise's cluster features");
		}
		return SpringBootInternals.connectionFactoryDeclarers();
	}

}

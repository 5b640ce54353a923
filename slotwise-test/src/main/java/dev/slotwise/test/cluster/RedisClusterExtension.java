package dev.slotwise.test.cluster;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension behind {@link WithRedisCluster}: starts (or reuses) a real
 * cluster, resolves {@link RedisTestCluster} parameters and resets data and statistics
 * before each test; skips a class that asks for a container where no Docker engine
 * answers.
 * <p>
 * Shared clusters stop when the JVM exits (their shutdown hook); dedicated ones after
 * their class. The Spring test integration finds the same cluster, whichever of the two
 * starts it.
 */
public class RedisClusterExtension
		implements ExecutionCondition, BeforeAllCallback, AfterAllCallback, BeforeEachCallback, ParameterResolver {

	@Override
	public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
		boolean container = context.getTestClass()
			.flatMap(RedisClusters::find)
			.map((annotated) -> annotated.settings().container())
			.orElse(false);
		if (container && !DockerLauncher.isAvailable()) {
			return ConditionEvaluationResult.disabled(DockerLauncher.UNAVAILABLE);
		}
		return ConditionEvaluationResult.enabled("the cluster can start");
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		RedisClusters.of(context.getRequiredTestClass());
	}

	@Override
	public void afterAll(ExtensionContext context) {
		RedisClusters.release(context.getRequiredTestClass());
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		RedisClusters.of(context.getRequiredTestClass()).reset();
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return parameterContext.getParameter().getType() == RedisTestCluster.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext)
			throws ParameterResolutionException {
		return RedisClusters.of(extensionContext.getRequiredTestClass());
	}

}

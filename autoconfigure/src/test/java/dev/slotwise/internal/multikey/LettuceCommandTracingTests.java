package dev.slotwise.internal.multikey;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.slotwise.internal.multikey.LettuceBatchCommand.Batch;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.CompleteableCommand;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.protocol.TracedCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.tracing.MicrometerTracing;
import io.lettuce.core.tracing.TraceContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's commands are wrapped for Lettuce's tracing only when the client traces,
 * carry the observation current on the sending thread, and still complete their batch
 * through the wrapper.
 */
class LettuceCommandTracingTests {

	@Test
	void withoutTracingNothingIsWrapped() {
		ClientResources resources = ClientResources.create();
		try {
			LettuceCommandTracing tracing = LettuceCommandTracing.of(resources);
			RedisCommand<byte[], byte[], ?> command = request(new Batch(1));
			assertThat(tracing.isEnabled()).isFalse();
			assertThat(tracing.currentContext()).isNull();
			assertThat(tracing.wrap(command, null)).isSameAs(command);
			assertThat(LettuceCommandTracing.of(null).isEnabled()).isFalse();
		}
		finally {
			resources.shutdown(0, 1, TimeUnit.SECONDS);
		}
	}

	@Test
	void withTracingCommandsAreCompleteableAndCarryTheCurrentObservation() {
		ObservationRegistry registry = ObservationRegistry.create();
		registry.observationConfig().observationHandler((context) -> true);
		ClientResources resources = ClientResources.builder().tracing(new MicrometerTracing(registry, "Redis")).build();
		try {
			LettuceCommandTracing tracing = LettuceCommandTracing.of(resources);
			assertThat(tracing.isEnabled()).isTrue();
			Observation batchObservation = Observation.start("batch", registry);
			TraceContext context;
			try (Observation.Scope scope = batchObservation.openScope()) {
				context = tracing.currentContext();
			}
			assertThat(context).isNotNull();
			Batch batch = new Batch(1);
			RedisCommand<byte[], byte[], ?> wrapped = tracing.wrap(request(batch), context);
			assertThat(wrapped).isInstanceOf(TracedCommand.class).isInstanceOf(CompleteableCommand.class);
			assertThat(((TracedCommand<?, ?, ?>) wrapped).getTraceContext()).isSameAs(context);
			assertThat(tracing.wrap(wrapped, context)).isSameAs(wrapped);
			List<Object> completions = new CopyOnWriteArrayList<>();
			((CompleteableCommand<?>) wrapped).onComplete((value, failure) -> completions.add("completed"));
			wrapped.getOutput().set(java.nio.ByteBuffer.wrap("OK".getBytes(StandardCharsets.UTF_8)));
			wrapped.complete();
			assertThat(batch).isCompleted();
			assertThat(completions).containsExactly("completed");
			batchObservation.stop();
		}
		finally {
			resources.shutdown(0, 1, TimeUnit.SECONDS);
		}
	}

	private static LettuceBatchCommand request(Batch batch) {
		return LettuceBatchCommand.request(batch, 0, MultiKeyCommand.MSET, CommandType.MSET,
				new byte[][] { "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8) }, null);
	}

}

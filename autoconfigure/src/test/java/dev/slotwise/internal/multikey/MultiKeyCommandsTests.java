package dev.slotwise.internal.multikey;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.slotwise.internal.routing.NodeAddress;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisKeyCommands;
import org.springframework.data.redis.connection.RedisStringCommands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Which Spring Data Redis calls reach the engine, pinned by signature, with an in-memory
 * cluster behind it.
 */
class MultiKeyCommandsTests {

	private final FakeNodeTransport cluster = new FakeNodeTransport(new NodeAddress("10.0.0.1", 7000),
			new NodeAddress("10.0.0.2", 7000));

	private final AtomicBoolean pipelined = new AtomicBoolean();

	private final List<String> forwarded = new ArrayList<>();

	private final MultiKeyCommands commands = new MultiKeyCommands(
			() -> new MultiKeyEngine(this.cluster, new MultiKeySettings(500, 10_000, Duration.ofSeconds(5), 5)),
			this.pipelined::get);

	@Test
	void interceptsExactlyTheseSpringDataRedisSignatures() {
		assertThat(MultiKeyCommands.requireInterceptedMethods()).extracting(MultiKeyCommandsTests::signature)
			.containsExactlyInAnyOrder("RedisStringCommands.mGet(byte[][]) -> List",
					"RedisStringCommands.mSet(Map) -> Boolean", "RedisKeyCommands.del(byte[][]) -> Long",
					"RedisKeyCommands.unlink(byte[][]) -> Long", "RedisKeyCommands.exists(byte[][]) -> Long");
	}

	@Test
	void crossSlotCallsRunOnTheEngine() {
		RedisStringCommands strings = this.commands.strings(() -> delegate(RedisStringCommands.class));
		RedisKeyCommands keys = this.commands.keys(() -> delegate(RedisKeyCommands.class));
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		tuples.put(bytes("a"), bytes("1"));
		tuples.put(bytes("b"), bytes("2"));
		assertThat(strings.mSet(tuples)).isTrue();
		assertThat(strings.mGet(bytes("b"), bytes("a"), bytes("c"))).containsExactly(bytes("2"), bytes("1"), null);
		assertThat(keys.exists(bytes("a"), bytes("b"), bytes("a"))).isEqualTo(3);
		assertThat(keys.unlink(bytes("a"), bytes("c"))).isEqualTo(1);
		assertThat(keys.del(bytes("a"), bytes("b"))).isEqualTo(1);
		assertThat(this.forwarded).isEmpty();
		assertThat(this.cluster.sent).isNotEmpty();
	}

	@Test
	void sameSlotCallsAndOtherMethodsGoToSpringDataRedis() {
		RedisStringCommands strings = this.commands.strings(() -> delegate(RedisStringCommands.class));
		RedisKeyCommands keys = this.commands.keys(() -> delegate(RedisKeyCommands.class));
		strings.mGet(bytes("{t}a"), bytes("{t}b"));
		keys.del(bytes("{t}a"), bytes("{t}b"));
		strings.get(bytes("a"));
		keys.exists(bytes("a"));
		assertThat(this.forwarded).containsExactly("mGet", "del", "get", "exists");
		assertThat(this.cluster.sent).isEmpty();
	}

	@Test
	void pipelinedCallsGoToSpringDataRedis() {
		this.pipelined.set(true);
		this.commands.strings(() -> delegate(RedisStringCommands.class)).mGet(bytes("a"), bytes("b"));
		assertThat(this.forwarded).containsExactly("mGet");
		assertThat(this.cluster.sent).isEmpty();
	}

	@Test
	void nullKeysAreRejectedNamingTheArgument() {
		RedisStringCommands strings = this.commands.strings(() -> delegate(RedisStringCommands.class));
		assertThatIllegalArgumentException().isThrownBy(() -> strings.mGet(bytes("a"), null))
			.withMessageContaining("'keys'")
			.withMessageContaining("index 1");
		Map<byte[], byte[]> tuples = new LinkedHashMap<>();
		tuples.put(bytes("a"), null);
		assertThatIllegalArgumentException().isThrownBy(() -> strings.mSet(tuples)).withMessageContaining("'tuples'");
	}

	private <T> T delegate(Class<T> type) {
		return type
			.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, (proxy, method, args) -> {
				this.forwarded.add(method.getName());
				Class<?> returns = method.getReturnType();
				return (returns == Long.class) ? 0L
						: (returns == Boolean.class) ? Boolean.TRUE : (returns == List.class) ? List.of() : null;
			}));
	}

	private static String signature(Method method) {
		return method.getDeclaringClass().getSimpleName() + "." + method.getName() + "("
				+ method.getParameterTypes()[0].getSimpleName() + ") -> " + method.getReturnType().getSimpleName();
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}

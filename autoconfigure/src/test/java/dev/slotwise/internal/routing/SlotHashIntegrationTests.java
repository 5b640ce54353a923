package dev.slotwise.internal.routing;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.WithRedisCluster;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Slots computed here equal the server's {@code CLUSTER KEYSLOT}.
 */
@WithRedisCluster
class SlotHashIntegrationTests {

	@ParameterizedTest
	@ValueSource(strings = { "123456789", "{}", "{{a}}", "a{b}c{d}", "{", "}", "}{", "{a", "a}", "{}a", "a{}",
			"{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}", "", "{ }", "\u00e9{\u00e9}" })
	void hashTagEdgeCaseMatchesServer(String key, RedisTestCluster cluster) {
		byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
		assertThat(SlotHash.slot(bytes)).isEqualTo(cluster.keySlot(bytes));
	}

	@Test
	void randomBinaryKeysMatchServer(RedisTestCluster cluster) {
		Random random = new Random(3);
		byte[] alphabet = { '{', '}', 'a', 'b', 0, (byte) 0xFF, (byte) 0x80, '\n', ' ' };
		for (int i = 0; i < 300; i++) {
			byte[] key = new byte[random.nextInt(12)];
			for (int j = 0; j < key.length; j++) {
				key[j] = random.nextBoolean() ? alphabet[random.nextInt(alphabet.length)] : (byte) random.nextInt();
			}
			assertThat(SlotHash.slot(key)).as("slot of key #%d", i).isEqualTo(cluster.keySlot(key));
		}
	}

}

package dev.slotwise.internal.routing;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * CRC16 and hash tags as the Redis Cluster specification defines them, without a server.
 */
class SlotHashTests {

	@Test
	void crc16OfSpecificationVectorIs31C3() {
		assertThat(SlotHash.crc16("123456789".getBytes(StandardCharsets.US_ASCII))).isEqualTo(0x31C3);
	}

	@Test
	void crc16OfNothingIsZero() {
		assertThat(SlotHash.crc16(new byte[0])).isZero();
	}

	@Test
	void keysWithSameHashTagShareASlot() {
		assertThat(SlotHash.slot(bytes("{user1000}.following"))).isEqualTo(SlotHash.slot(bytes("{user1000}.followers")))
			.isEqualTo(SlotHash.slot(bytes("user1000")));
	}

	@Test
	void emptyHashTagHashesWholeKey() {
		assertThat(SlotHash.slot(bytes("foo{}{bar}"))).isEqualTo(SlotHash.crc16(bytes("foo{}{bar}")) % 16384);
	}

	@Test
	void nullKeyIsRejectedNamingTheArgument() {
		assertThatIllegalArgumentException().isThrownBy(() -> SlotHash.slot(null)).withMessageContaining("'key'");
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}

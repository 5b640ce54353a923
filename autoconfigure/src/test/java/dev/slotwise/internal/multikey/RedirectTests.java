package dev.slotwise.internal.multikey;

import dev.slotwise.internal.routing.NodeAddress;
import dev.slotwise.internal.routing.RedirectKind;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Parsing redirect replies once, IPv6 endpoints included.
 */
class RedirectTests {

	private static final NodeAddress FROM = new NodeAddress("10.0.0.9", 7000);

	@Test
	void movedToAnIpv4Endpoint() {
		assertThat(Redirect.parse("MOVED 3999 127.0.0.1:6381", FROM))
			.isEqualTo(new Redirect(RedirectKind.MOVED, new NodeAddress("127.0.0.1", 6381)));
	}

	@Test
	void movedToAnIpv6EndpointKeepsTheHostsColons() {
		assertThat(Redirect.parse("MOVED 1 ::1:7001", FROM))
			.isEqualTo(new Redirect(RedirectKind.MOVED, new NodeAddress("::1", 7001)));
		assertThat(Redirect.parse("ASK 1 2001:db8::7:7002", FROM))
			.isEqualTo(new Redirect(RedirectKind.ASK, new NodeAddress("2001:db8::7", 7002)));
	}

	@Test
	void anEmptyHostMeansTheNodeThatAnswered() {
		assertThat(Redirect.parse("ASK 3999 :6381", FROM))
			.isEqualTo(new Redirect(RedirectKind.ASK, new NodeAddress("10.0.0.9", 6381)));
	}

	@Test
	void hostnameEndpoints() {
		assertThat(Redirect.parse("MOVED 3999 redis-2.example:6379", FROM))
			.isEqualTo(new Redirect(RedirectKind.MOVED, new NodeAddress("redis-2.example", 6379)));
	}

	@Test
	void tryAgainStaysOnTheNodeThatAnswered() {
		assertThat(Redirect.parse("TRYAGAIN Multiple keys request during rehashing of slot", FROM))
			.isEqualTo(new Redirect(RedirectKind.TRYAGAIN, FROM));
	}

	@Test
	void otherErrorsAreNoRedirect() {
		assertThat(Redirect.parse("CLUSTERDOWN The cluster is down", FROM)).isNull();
		assertThat(Redirect.parse("MOVEDX 1 a:1", FROM)).isNull();
		assertThat(Redirect.isRedirect("WRONGTYPE Operation against a key")).isFalse();
		assertThat(Redirect.isRedirect("ASK 1 a:1")).isTrue();
		assertThat(Redirect.isRedirect(null)).isFalse();
	}

	@Test
	void aRedirectWithoutUsableTargetIsRejectedQuotingTheReply() {
		assertThatIllegalArgumentException().isThrownBy(() -> Redirect.parse("MOVED 3999", FROM))
			.withMessageContaining("'MOVED 3999'");
		assertThatIllegalArgumentException().isThrownBy(() -> Redirect.parse("MOVED 3999 host:port", FROM))
			.withMessageContaining("'MOVED 3999 host:port'");
	}

}

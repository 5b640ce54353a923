package dev.slotwise.internal.pool;

import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;

/**
 * When a Jedis node batch is sent a second time: only after a connection failure on a
 * borrowed connection before any reply was read, once.
 */
class StaleJedisConnectionsTests {

	private final ConnectionPool pool = mock(ConnectionPool.class);

	private final List<String> attempts = new ArrayList<>();

	@Test
	void aConnectionFailureBeforeAnyReplyIsSentOnceMoreAfterTheIdleConnectionsAreDropped() {
		Connection dead = failingConnection(new JedisConnectionException("Unexpected end of stream."));
		Connection fresh = mock(Connection.class);
		given(fresh.getOne()).willReturn("OK");
		Object reply = StaleJedisConnections.send(this.pool, (attempt) -> {
			this.attempts.add("attempt");
			return attempt.read(attempt.borrowed((this.attempts.size() == 1) ? dead : fresh));
		});
		assertThat(reply).isEqualTo("OK");
		assertThat(this.attempts).hasSize(2);
		verify(this.pool).clear();
	}

	@Test
	void aFailureAfterAReplyWasReadIsNotSentAgain() {
		Connection connection = mock(Connection.class);
		given(connection.getOne()).willReturn("OK");
		assertThatExceptionOfType(JedisConnectionException.class)
			.isThrownBy(() -> StaleJedisConnections.send(this.pool, (attempt) -> {
				this.attempts.add("attempt");
				attempt.read(attempt.borrowed(connection));
				throw new JedisConnectionException("Unexpected end of stream.");
			}));
		assertThat(this.attempts).hasSize(1);
		verify(this.pool, never()).clear();
	}

	@Test
	void anErrorReplyCountsAsAReadReply() {
		Connection connection = mock(Connection.class);
		given(connection.getOne()).willThrow(new JedisDataException("WRONGTYPE"));
		assertThatExceptionOfType(JedisConnectionException.class)
			.isThrownBy(() -> StaleJedisConnections.send(this.pool, (attempt) -> {
				this.attempts.add("attempt");
				assertThat(attempt.read(attempt.borrowed(connection))).isInstanceOf(JedisDataException.class);
				throw new JedisConnectionException("Unexpected end of stream.");
			}));
		assertThat(this.attempts).hasSize(1);
	}

	@Test
	void aReadTimeoutIsNotSentAgain() {
		Connection connection = failingConnection(
				new JedisConnectionException(new SocketTimeoutException("Read timed out")));
		assertThatExceptionOfType(JedisConnectionException.class)
			.isThrownBy(() -> StaleJedisConnections.send(this.pool, (attempt) -> {
				this.attempts.add("attempt");
				return attempt.read(attempt.borrowed(connection));
			}));
		assertThat(this.attempts).hasSize(1);
	}

	@Test
	void aFailureToBorrowIsNotSentAgain() {
		assertThatExceptionOfType(JedisConnectionException.class)
			.isThrownBy(() -> StaleJedisConnections.send(this.pool, (attempt) -> {
				this.attempts.add("attempt");
				throw new JedisConnectionException("Connection refused");
			}));
		assertThat(this.attempts).hasSize(1);
	}

	@Test
	void aSecondFailureIsThrownWithTheFirstSuppressed() {
		JedisConnectionException first = new JedisConnectionException("first");
		JedisConnectionException second = new JedisConnectionException("second");
		assertThatExceptionOfType(JedisConnectionException.class)
			.isThrownBy(() -> StaleJedisConnections.send(this.pool, (attempt) -> {
				this.attempts.add("attempt");
				return attempt.read(attempt.borrowed(failingConnection((this.attempts.size() == 1) ? first : second)));
			}))
			.isSameAs(second)
			.satisfies((ex) -> assertThat(ex.getSuppressed()).containsExactly(first));
		assertThat(this.attempts).hasSize(2);
	}

	private static Connection failingConnection(JedisConnectionException failure) {
		Connection connection = mock(Connection.class);
		given(connection.getOne()).willThrow(failure);
		given(connection.isBroken()).willReturn(true);
		return connection;
	}

}

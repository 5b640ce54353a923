package dev.slotwise.test.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.pem.PemSslStoreBundle;
import org.springframework.boot.ssl.pem.PemSslStoreDetails;

/**
 * A test cluster as Spring Boot's Redis connection details: its nodes as the
 * {@link Cluster} seeds, the credentials of its security mode, and for a TLS cluster an
 * SSL bundle that trusts the cluster's CA.
 */
final class RedisClusterConnectionDetails implements DataRedisConnectionDetails {

	private final RedisTestCluster cluster;

	RedisClusterConnectionDetails(RedisTestCluster cluster) {
		this.cluster = cluster;
	}

	@Override
	public @Nullable String getUsername() {
		return this.cluster.security().username();
	}

	@Override
	public @Nullable String getPassword() {
		return this.cluster.security().password();
	}

	@Override
	public @Nullable SslBundle getSslBundle() {
		TlsCertificates tls = this.cluster.security().tlsCertificates();
		if (tls == null) {
			return null;
		}
		try {
			String ca = Files.readString(tls.caCertificate());
			return SslBundle.of(new PemSslStoreBundle(null, PemSslStoreDetails.forCertificate(ca)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the test cluster's CA certificate", ex);
		}
	}

	@Override
	public Cluster getCluster() {
		List<Node> nodes = this.cluster.nodes().stream().map((node) -> new Node(node.host(), node.port())).toList();
		return () -> nodes;
	}

	@Override
	public String toString() {
		return "Redis Cluster connection details of " + this.cluster;
	}

}

package dev.slotwise.internal.multikey;

import dev.slotwise.test.cluster.ClusterSecurity;
import dev.slotwise.test.cluster.ClusterShape;
import dev.slotwise.test.cluster.RedisTestCluster;
import dev.slotwise.test.cluster.TlsCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A TLS-only cluster ({@code port 0}, {@code tls-port}, {@code tls-cluster yes},
 * {@code tls-replication yes}) with certificates made by the test, and an application
 * that trusts their CA through a Spring Boot SSL bundle ({@code spring.ssl.bundle.pem.*},
 * {@code spring.data.redis.ssl.bundle}): everything {@link SecuredClusterScenario}
 * checks, on both clients. A plain-text connection anywhere would never get an answer.
 */
class TlsClusterIntegrationTests {

	private static TlsCertificates certificates;

	private static RedisTestCluster cluster;

	@BeforeAll
	static void start() {
		certificates = TlsCertificates.generate();
		cluster = RedisTestCluster.startSecured(ClusterShape.DEFAULT, ClusterSecurity.tls(certificates));
	}

	@AfterAll
	static void stop() {
		if (cluster != null) {
			cluster.close();
		}
	}

	@ParameterizedTest
	@ValueSource(strings = { "jedis", "lettuce" })
	void applicationTrustingTheBundleIsServedFully(String client) {
		SecuredClusterScenario.run(client, cluster, "spring.data.redis.ssl.enabled=true",
				"spring.data.redis.ssl.bundle=slotwise-test",
				"spring.ssl.bundle.pem.slotwise-test.truststore.certificate=file:" + certificates.caCertificate());
	}

}

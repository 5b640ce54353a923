package dev.slotwise.test.cluster;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;
import redis.clients.jedis.DefaultJedisClientConfig;

/**
 * How the nodes of a test cluster admit clients: a password for the default user
 * ({@code requirepass}), an ACL user with the default user switched off, or TLS only
 * ({@code port 0}). The test kit's admin connections and the nodes' own links to each
 * other (replication, {@code MIGRATE}, the cluster bus) use what the mode needs; the
 * application under test is configured by the test.
 */
public final class ClusterSecurity {

	/** No password, no TLS: what {@link RedisTestCluster#start(ClusterShape)} runs. */
	public static final ClusterSecurity NONE = new ClusterSecurity(null, null, null, null, null);

	/**
	 * The ACL user the test kit administers a cluster of {@link #aclUser(String, String)}
	 * with.
	 */
	public static final String ADMIN_USER = "slotwise-test-admin";

	private static final String ADMIN_PASSWORD = "slotwise-test-admin-secret";

	private final @Nullable String requirePass;

	private final @Nullable String user;

	private final @Nullable String userPassword;

	private final @Nullable String userRules;

	private final @Nullable TlsCertificates tls;

	private ClusterSecurity(@Nullable String requirePass, @Nullable String user, @Nullable String userPassword,
			@Nullable String userRules, @Nullable TlsCertificates tls) {
		this.requirePass = requirePass;
		this.user = user;
		this.userPassword = userPassword;
		this.userRules = userRules;
		this.tls = tls;
	}

	/**
	 * The default user needs a password ({@code requirepass}); replicas authenticate with
	 * it ({@code masterauth}).
	 * @param password the password
	 * @return the mode
	 */
	public static ClusterSecurity requirePass(String password) {
		return new ClusterSecurity(password, null, null, null, null);
	}

	/**
	 * The default user is off ({@code user default off}); the application's user has
	 * every permission ({@code ~* &* +@all}) and a password, and the test kit and
	 * replicas use an admin user of their own.
	 * @param user the application's user
	 * @param password its password
	 * @return the mode
	 */
	public static ClusterSecurity aclUser(String user, String password) {
		return new ClusterSecurity(null, user, password, "~* &* +@all", null);
	}

	/**
	 * Clients connect over TLS only ({@code port 0}, {@code tls-port}); the nodes talk to
	 * each other over TLS too ({@code tls-cluster yes}, {@code tls-replication yes}).
	 * Clients are not asked for certificates.
	 * @param certificates the CA and the nodes' certificate
	 * @return the mode
	 */
	public static ClusterSecurity tls(TlsCertificates certificates) {
		return new ClusterSecurity(null, null, null, null, certificates);
	}

	/**
	 * Returns the user the application connects as.
	 * @return the ACL user, {@code null} unless the mode is
	 * {@link #aclUser(String, String)}
	 */
	public @Nullable String username() {
		return this.user;
	}

	/**
	 * Returns the password the application connects with.
	 * @return the default user's or the ACL user's password, {@code null} when the mode
	 * needs none
	 */
	public @Nullable String password() {
		return (this.user != null) ? this.userPassword : this.requirePass;
	}

	/**
	 * Returns the TLS files of a TLS-only cluster.
	 * @return the certificates, {@code null} when the cluster is not TLS-only
	 */
	public @Nullable TlsCertificates tlsCertificates() {
		return this.tls;
	}

	/**
	 * Returns the {@code redis-server} arguments of a node; the port is the TLS port in
	 * TLS mode.
	 * @param port the node's client port
	 * @return the arguments, added after the test kit's own
	 */
	List<String> serverArguments(int port) {
		List<String> arguments = new ArrayList<>();
		if (this.requirePass != null) {
			arguments.addAll(List.of("--requirepass", this.requirePass, "--masterauth", this.requirePass));
		}
		if (this.user != null) {
			arguments.addAll(List.of("--user", "default", "off"));
			arguments.addAll(List.of("--user", ADMIN_USER, "on", ">" + ADMIN_PASSWORD, "~*", "&*", "+@all"));
			List<String> rule = new ArrayList<>(List.of("--user", this.user, "on", ">" + this.userPassword));
			rule.addAll(List.of(this.userRules.split(" ")));
			arguments.addAll(rule);
			arguments.addAll(List.of("--masteruser", ADMIN_USER, "--masterauth", ADMIN_PASSWORD));
		}
		if (this.tls != null) {
			arguments.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port), "--tls-cert-file",
					this.tls.serverCertificate().toString(), "--tls-key-file", this.tls.serverKey().toString(),
					"--tls-ca-cert-file", this.tls.caCertificate().toString(), "--tls-auth-clients", "no",
					"--tls-cluster", "yes", "--tls-replication", "yes"));
		}
		return arguments;
	}

	/**
	 * Adds what the test kit's admin connections need: credentials, TLS.
	 * @param builder the admin connections' configuration
	 * @return the builder
	 */
	DefaultJedisClientConfig.Builder admin(DefaultJedisClientConfig.Builder builder) {
		if (this.requirePass != null) {
			builder.password(this.requirePass);
		}
		if (this.user != null) {
			builder.user(ADMIN_USER).password(ADMIN_PASSWORD);
		}
		if (this.tls != null) {
			builder.ssl(true).sslSocketFactory(this.tls.socketFactory());
		}
		return builder;
	}

	/**
	 * Returns the authentication options a {@code MIGRATE} between two nodes needs.
	 * @return {@code AUTH password}, {@code AUTH2 user password}, or nothing
	 */
	public List<String> migrateAuthentication() {
		if (this.requirePass != null) {
			return List.of("AUTH", this.requirePass);
		}
		if (this.user != null) {
			return List.of("AUTH2", ADMIN_USER, ADMIN_PASSWORD);
		}
		return List.of();
	}

	@Override
	public String toString() {
		return (this.tls != null) ? "TLS only" : (this.user != null) ? "ACL user " + this.user
				: (this.requirePass != null) ? "requirepass" : "no security";
	}

}

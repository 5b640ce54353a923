package dev.slotwise.test.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throwaway certificate authority and one server certificate it signed, made with
 * {@code openssl} for a TLS test cluster. The server certificate names {@code 127.0.0.1}
 * and {@code localhost} (so clients that verify the host accept it) and serves both as
 * the nodes' server certificate and as their client certificate towards each other
 * (cluster bus and replication over TLS).
 *
 * @param directory where the files are
 * @param caCertificate the CA certificate (PEM), what clients trust
 * @param serverCertificate the nodes' certificate (PEM)
 * @param serverKey the nodes' private key (PEM, unencrypted)
 */
public record TlsCertificates(Path directory, Path caCertificate, Path serverCertificate, Path serverKey) {

	/**
	 * Generates a CA and a server certificate valid for two days in a new temporary
	 * directory.
	 * @return the files
	 * @throws IllegalStateException when {@code openssl} is missing or fails
	 */
	public static TlsCertificates generate() {
		try {
			Path directory = Files.createTempDirectory("slotwise-tls-");
			directory.toFile().deleteOnExit();
			Path caKey = directory.resolve("ca.key");
			Path ca = directory.resolve("ca.crt");
			Path key = directory.resolve("server.key");
			Path request = directory.resolve("server.csr");
			Path certificate = directory.resolve("server.crt");
			Path extensions = directory.resolve("server.ext");
			Files.writeString(extensions, "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
					+ "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n");
			openssl(directory, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", caKey.toString(), "-out",
					ca.toString(), "-days", "2", "-subj", "/CN=slotwise-test-ca", "-addext",
					"basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
			openssl(directory, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", key.toString(), "-out",
					request.toString(), "-subj", "/CN=localhost");
			openssl(directory, "x509", "-req", "-in", request.toString(), "-CA", ca.toString(), "-CAkey",
					caKey.toString(), "-CAcreateserial", "-out", certificate.toString(), "-days", "2", "-extfile",
					extensions.toString());
			for (Path file : List.of(caKey, ca, key, request, certificate, extensions, directory.resolve("ca.srl"))) {
				file.toFile().deleteOnExit();
			}
			return new TlsCertificates(directory, ca, certificate, key);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not write the test certificates", ex);
		}
	}

	private static void openssl(Path directory, String... arguments) throws IOException {
		List<String> command = new ArrayList<>();
		command.add("openssl");
		command.addAll(List.of(arguments));
		Process process;
		try {
			process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			throw new IllegalStateException("The TLS tests need openssl on the PATH ('apt-get install -y openssl')",
					ex);
		}
		try {
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("'" + String.join(" ", command) + "' failed: " + output);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while running openssl", ex);
		}
	}

	/**
	 * Returns a socket factory that trusts this CA only, for the test kit's own admin
	 * connections.
	 * @return the factory
	 */
	public SSLSocketFactory socketFactory() {
		try (InputStream in = Files.newInputStream(this.caCertificate)) {
			KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
			trust.load(null, null);
			trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
			TrustManagerFactory trustManagers = TrustManagerFactory
				.getInstance(TrustManagerFactory.getDefaultAlgorithm());
			trustManagers.init(trust);
			SSLContext context = SSLContext.getInstance("TLS");
			context.init(null, trustManagers.getTrustManagers(), null);
			return context.getSocketFactory();
		}
		catch (IOException | GeneralSecurityException ex) {
			throw new IllegalStateException("Could not load " + this.caCertificate, ex);
		}
	}

}

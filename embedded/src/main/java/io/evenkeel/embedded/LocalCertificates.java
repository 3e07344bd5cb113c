package io.evenkeel.embedded;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for one machine's processes (tests and the local stack): EC P-256 keys,
 * certificates valid for a year, each leaf named by its common name (which a shard server checks to tell a writer
 * from a reader) and valid for {@code localhost} and {@code 127.0.0.1}. Files are PEM: {@code ca.pem}, and per leaf
 * {@code <name>.pem} with {@code <name>.key} (PKCS#8), as gRPC's TLS credentials read them; for JVM TLS stacks that
 * take key stores (Flink's REST endpoint, the JDK's HTTP client), PKCS#12 copies of a leaf and of the CA.
 */
public final class LocalCertificates {
  /** A leaf's files. */
  public record Issued(Path certificate, Path privateKey) {}

  private final Path dir;
  private final KeyPair caKeys;
  private final X509Certificate ca;

  private LocalCertificates(Path dir, KeyPair caKeys, X509Certificate ca) {
    this.dir = dir;
    this.caKeys = caKeys;
    this.ca = ca;
  }

  /** A new CA whose certificate is written to {@code dir/ca.pem}. */
  public static LocalCertificates create(Path dir) throws IOException {
    Files.createDirectories(dir);
    KeyPair keys = keyPair();
    X500Name name = new X500Name("CN=Evenkeel local CA");
    X509Certificate ca = sign(new JcaX509v3CertificateBuilder(name, serial(), notBefore(), notAfter(), name,
        keys.getPublic())
        .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
        .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)), keys);
    LocalCertificates authority = new LocalCertificates(dir, keys, ca);
    writePem(authority.caCertificate(), "CERTIFICATE", encoded(ca));
    return authority;
  }

  public Path caCertificate() {
    return dir.resolve("ca.pem");
  }

  /** A certificate for {@code commonName}, signed by this CA, usable by a server and a client. */
  public Issued issue(String commonName) throws IOException {
    KeyPair keys = keyPair();
    X509Certificate certificate = sign(new JcaX509v3CertificateBuilder(ca, serial(), notBefore(), notAfter(),
        new X500Name("CN=" + commonName), keys.getPublic())
        .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
        .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, "localhost"), new GeneralName(GeneralName.iPAddress, "127.0.0.1")})),
        caKeys);
    Issued issued = new Issued(dir.resolve(commonName + ".pem"), dir.resolve(commonName + ".key"));
    writePem(issued.certificate(), "CERTIFICATE", encoded(certificate));
    writePem(issued.privateKey(), "PRIVATE KEY", keys.getPrivate().getEncoded());
    // Anyone who reads a key is that process (the writer's key writes): the owner's alone.
    Files.setPosixFilePermissions(issued.privateKey(), PosixFilePermissions.fromString("rw-------"));
    return issued;
  }

  /** {@code <name>.p12}: the leaf's key and certificate chain as a PKCS#12 key store under {@code password}. */
  public Path keyStore(Issued issued, char[] password) throws IOException {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(
          readPem(issued.privateKey())));
      store.setKeyEntry("key", key, password, new Certificate[] {certificate(issued.certificate()), ca});
      Path file = Path.of(issued.certificate().toString().replaceAll("\\.pem$", ".p12"));
      write(store, file, password);
      return file;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot make a key store of " + issued.certificate() + ": " + e.getMessage(), e);
    }
  }

  /** {@code ca.p12}: the CA's certificate as a PKCS#12 trust store under {@code password}. */
  public Path trustStore(char[] password) throws IOException {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setCertificateEntry("ca", ca);
      Path file = dir.resolve("ca.p12");
      write(store, file, password);
      return file;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot make the trust store: " + e.getMessage(), e);
    }
  }

  private static void write(KeyStore store, Path file, char[] password) throws IOException, GeneralSecurityException {
    try (var out = Files.newOutputStream(file)) {
      store.store(out, password);
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
  }

  private static X509Certificate certificate(Path pem) throws IOException, GeneralSecurityException {
    return (X509Certificate) CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(readPem(pem)));
  }

  private static byte[] readPem(Path file) throws IOException {
    String body = Files.readString(file).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    return Base64.getDecoder().decode(body);
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair signer) throws IOException {
    try {
      PrivateKey key = signer.getPrivate();
      return new JcaX509CertificateConverter().getCertificate(builder.build(
          new JcaContentSignerBuilder("SHA256withECDSA").build(key)));
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IOException("cannot sign a certificate: " + e.getMessage(), e);
    }
  }

  private static KeyPair keyPair() throws IOException {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IOException("no EC P-256 key generator: " + e.getMessage(), e);
    }
  }

  private static byte[] encoded(X509Certificate certificate) throws IOException {
    try {
      return certificate.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IOException(e);
    }
  }

  private static void writePem(Path file, String type, byte[] der) throws IOException {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    Files.writeString(file, "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n");
  }

  private static BigInteger serial() {
    return new BigInteger(64, new SecureRandom());
  }

  private static Date notBefore() {
    return Date.from(Instant.now().minus(Duration.ofHours(1)));
  }

  private static Date notAfter() {
    return Date.from(Instant.now().plus(Duration.ofDays(365)));
  }
}

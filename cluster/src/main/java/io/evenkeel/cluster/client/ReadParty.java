package io.evenkeel.cluster.client;

import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.stub.MetadataUtils;

/**
 * Whom a read is for, as a shard server's calls carry it: a header naming the party (a tenant, a tenant key, or every
 * tenant), by which the server takes turns between parties. It decides only the order of work, never what is read.
 */
public final class ReadParty {
  /** The header; printable ASCII. */
  public static final Metadata.Key<String> HEADER = Metadata.Key.of("evenkeel-party",
      Metadata.ASCII_STRING_MARSHALLER);
  /** The party of calls that name none. */
  public static final String UNNAMED = "unnamed";
  /** At most this many characters of a party's name travel. */
  private static final int MAX_LENGTH = 128;

  private ReadParty() {}

  /** Attaches {@code party} to a stub's calls. */
  public static ClientInterceptor attach(String party) {
    Metadata headers = new Metadata();
    headers.put(HEADER, printable(party));
    return MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  /** {@code party} as a header can carry it: printable ASCII, at most {@value #MAX_LENGTH} characters. */
  public static String printable(String party) {
    StringBuilder text = new StringBuilder(Math.min(party.length(), MAX_LENGTH));
    for (int i = 0; i < party.length() && text.length() < MAX_LENGTH; i++) {
      char c = party.charAt(i);
      text.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return text.toString();
  }
}

package io.evenkeel.query.http;

import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The names the service answers to. A request's {@code Host} must be one of them, so that a web page cannot point a
 * name of its own at the service's address and read it as its own site (DNS rebinding); a request a browser sends
 * from a page ({@code Origin}) must come from the service's own origin (or one of its names, behind a proxy that
 * rewrites {@code Host}), so that a page elsewhere cannot post queries across sites. A service bound to a wildcard address, with no names given, takes any {@code Host}: it cannot know
 * the names it is reached by.
 */
final class ServiceNames {
  private static final Set<String> LOOPBACK = Set.of("localhost", "127.0.0.1", "::1");

  /** Lower case, without ports; empty: any host. */
  private final Set<String> hosts;

  private ServiceNames(Set<String> hosts) {
    this.hosts = hosts;
  }

  /** The names of a service bound to {@code bindHost}, and {@code allowed} (the operator's, for other names). */
  static ServiceNames of(String bindHost, List<String> allowed) {
    Set<String> hosts = new TreeSet<>();
    allowed.stream().map(String::strip).filter(name -> !name.isEmpty()).map(ServiceNames::hostOf).forEach(hosts::add);
    String bound = hostOf(bindHost);
    boolean wildcard = bound.isEmpty() || bound.equals("0.0.0.0") || bound.equals("::");
    if (wildcard && hosts.isEmpty()) {
      return new ServiceNames(Set.of());
    }
    if (!wildcard) {
      hosts.add(bound);
    }
    if (wildcard || LOOPBACK.contains(bound)) {
      hosts.addAll(LOOPBACK);
    }
    return new ServiceNames(Set.copyOf(hosts));
  }

  /** Why a request with these headers (each null when absent) is refused, or null when it is not. */
  String refusal(String host, String origin) {
    if (host != null && !hosts.isEmpty() && !hosts.contains(hostOf(host))) {
      return "this service answers to " + hosts + ", not to Host: " + host + " (--allowed-hosts adds names)";
    }
    if (origin != null) {
      // "null" is what a browser sends from a sandboxed frame or with no referrer: a page that hides where it is.
      String from;
      try {
        from = origin.equals("null") ? null : URI.create(origin).getRawAuthority();
      } catch (IllegalArgumentException e) {
        from = null;
      }
      boolean own = from != null && (from.equalsIgnoreCase(host) || hosts.contains(hostOf(from)));
      if (!own) {
        return "a page from " + origin + " may not call this service: only its own pages may";
      }
    }
    return null;
  }

  /** {@code name} without its port or brackets, in lower case: {@code [::1]:80} is {@code ::1}. */
  static String hostOf(String name) {
    String host = name.strip().toLowerCase(Locale.ROOT);
    if (host.startsWith("[")) {
      int end = host.indexOf(']');
      return end < 0 ? host : host.substring(1, end);
    }
    int colon = host.indexOf(':');
    // One colon: host:port; more: an IPv6 address without brackets.
    return colon >= 0 && colon == host.lastIndexOf(':') ? host.substring(0, colon) : host;
  }
}

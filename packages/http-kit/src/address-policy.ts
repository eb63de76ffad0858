import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';

// The SSRF guard both apps apply before they connect somewhere a caller named: the bridge to a signed-event
// endpoint (apps/platform-bridge/src/features/webhooks/endpoint-address.ts), the gateway to a mailbox's IMAP server
// (apps/agent-gateway/src/features/email/imap-address.ts). A host is vetted with every address it resolves to, and
// the connection then goes to a vetted address, so a DNS answer that changes between the check and the connection
// cannot slip through.

/** Resolves a host name to all of its addresses; injectable so that a test can make `evil.test` resolve to 10.0.0.1. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The ipaddr.js range of an address (an IPv4-mapped IPv6 address judged as its IPv4); null when not an address. */
export function addressRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range();
}

/**
 * Why `address` may not be connected to, or null when it may. Only public unicast addresses pass, and loopback
 * when `allowLoopback`: private (10/8, 172.16/12, 192.168/16, fc00::/7), carrier-grade NAT (100.64/10), link-local
 * (169.254/16 — the cloud metadata address among them — and fe80::/10), unspecified, multicast, broadcast and
 * reserved ranges are refused. IPv4 written inside IPv6 (::ffff:10.0.0.1, 6to4, Teredo, NAT64) is refused too,
 * rather than decoded, except the IPv4-mapped form, which is judged as the IPv4 address it is.
 */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  const range = addressRange(address);
  if (range === null) return `"${address}" is not an IP address`;
  if (range === 'unicast') return null;
  if (range === 'loopback') return allowLoopback ? null : `${address} is a loopback address`;
  return `${address} is a ${range} address`;
}

const INTERNAL_RANGES = new Set(['unicast', 'private', 'uniqueLocal', 'loopback', 'carrierGradeNat']);

/**
 * Why an address of a host the operator vouches for (an internal host) may not be connected to, or null when it
 * may: its own network's private and loopback ranges pass; link-local (the metadata address) and every other
 * special range stay refused.
 */
export function refusedInternalAddress(address: string): string | null {
  const range = addressRange(address);
  if (range === null) return `"${address}" is not an IP address`;
  return INTERNAL_RANGES.has(range) ? null : `${address} is a ${range} address`;
}

export class AddressRefused extends Error {
  constructor(
    message: string,
    /** `address`: an address the policy refuses; `unresolvable`: the name has no address */
    readonly reason: 'address' | 'unresolvable',
  ) {
    super(message);
  }
}

export interface HostPolicy {
  /** loopback addresses allowed (development and tests) */
  allowLoopback: boolean;
  /** host names (lower case) the operator vouches for on its own network: see refusedInternalAddress */
  internalHosts?: readonly string[] | undefined;
  resolver?: Resolver | undefined;
}

/** `host` (a name or an IP literal, IPv6 without brackets) is one the operator vouches for. */
export function isInternalHost(host: string, policy: Pick<HostPolicy, 'internalHosts'>): boolean {
  return policy.internalHosts?.includes(host.toLowerCase()) ?? false;
}

/** The addresses `host` may be connected to: every one it resolves to passes the policy, or it throws. */
export async function vetHost(host: string, policy: HostPolicy): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (policy.resolver ?? systemResolver)(host);
    } catch (err) {
      throw new AddressRefused(
        `Could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`,
        'unresolvable',
      );
    }
    if (addresses.length === 0) throw new AddressRefused(`${host} has no addresses.`, 'unresolvable');
  }
  const internal = isInternalHost(host, policy);
  for (const { address } of addresses) {
    const refused = internal
      ? refusedInternalAddress(address)
      : refusedAddress(address, policy.allowLoopback);
    if (refused) throw new AddressRefused(`${host} is refused: ${refused}.`, 'address');
  }
  return addresses;
}

/**
 * A comma-separated list of host names in a setting (WEBHOOK_INTERNAL_HOSTS, IMAP_INTERNAL_HOSTS): trimmed, lower
 * case, at most 50.
 */
export const hostListSetting = () =>
  z
    .string()
    .default('')
    .transform((v) =>
      v
        .split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(
          z.string().regex(/^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$/, 'must be host names, comma-separated'),
        )
        .max(50),
    );

import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// The SSRF guard of the webhook endpoints. A URL is checked when it is registered, and every address
// its host resolves to is checked again when a delivery connects — the socket goes to the address that was vetted
// (the request's `lookup`), so a DNS answer that changes between the check and the connection cannot slip through.

/** Resolves a host name to all of its addresses; injectable so that a test can make `evil.test` resolve to 10.0.0.1. */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface AddressPolicy {
  /** http:// (and loopback addresses) allowed; WEBHOOK_ALLOW_HTTP_LOOPBACK */
  allowHttpLoopback: boolean;
  /**
   * WEBHOOK_INTERNAL_HOSTS: host names (lower case) the operator vouches for, on its own network — a docker compose
   * service such as `agent-gateway`. They may be reached over http and on private or loopback addresses; every
   * other special range (link-local and the metadata address, multicast, reserved...) stays refused for them.
   */
  internalHosts?: readonly string[];
  resolver?: Resolver;
}

export class EndpointRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'scheme' | 'address' | 'url' | 'unresolvable',
  ) {
    super(message);
  }
}

/**
 * Why `address` may not be connected to, or null when it may. Only public unicast addresses pass, and loopback
 * when `allowLoopback`: private (10/8, 172.16/12, 192.168/16, fc00::/7), carrier-grade NAT (100.64/10), link-local
 * (169.254/16 — the cloud metadata address among them — and fe80::/10), unspecified, multicast, broadcast and
 * reserved ranges are refused. IPv4 written inside IPv6 (::ffff:10.0.0.1, 6to4, Teredo, NAT64) is refused too,
 * rather than decoded, except the IPv4-mapped form, which is judged as the IPv4 address it is.
 */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  const range = rangeOf(address);
  if (range === null) return `"${address}" is not an IP address`;
  if (range === 'unicast') return null;
  if (range === 'loopback') return allowLoopback ? null : `${address} is a loopback address`;
  return `${address} is a ${range} address`;
}

/** The ipaddr.js range of an address (an IPv4-mapped IPv6 address judged as its IPv4); null when not an address. */
function rangeOf(address: string): string | null {
  if (!ipaddr.isValid(address)) return null;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed.range();
}

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

const INTERNAL_RANGES = new Set(['unicast', 'private', 'uniqueLocal', 'loopback', 'carrierGradeNat']);

function isInternal(url: URL, policy: AddressPolicy): boolean {
  return policy.internalHosts?.includes(hostOf(url).toLowerCase()) ?? false;
}

/** Why an internal host's address may not be connected to, or null when it may. */
function refusedInternalAddress(address: string): string | null {
  const range = rangeOf(address);
  if (range === null) return `"${address}" is not an IP address`;
  return INTERNAL_RANGES.has(range) ? null : `${address} is a ${range} address`;
}

/** Checks an endpoint URL's form: https (or http with the loopback allowance), no credentials, a host. */
export function parseEndpointUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EndpointRefused(`"${raw}" is not a URL.`, 'url');
  }
  if (raw.length > 2000) throw new EndpointRefused('The URL is longer than 2000 characters.', 'url');
  if (url.username || url.password) {
    throw new EndpointRefused('The URL must not carry credentials.', 'url');
  }
  if (url.protocol === 'http:') {
    if (!policy.allowHttpLoopback && !isInternal(url, policy)) {
      throw new EndpointRefused('The URL must use https (WEBHOOK_ALLOW_HTTP_LOOPBACK is off).', 'scheme');
    }
  } else if (url.protocol !== 'https:') {
    throw new EndpointRefused('The URL must use https.', 'scheme');
  }
  if (!hostOf(url)) throw new EndpointRefused('The URL has no host.', 'url');
  return url;
}

/**
 * The addresses `url`'s host may be connected to: all of them pass the policy, or it throws. An http:// URL must
 * reach loopback only (development and tests); https may reach public addresses (and loopback when allowed).
 */
export async function vetAddresses(url: URL, policy: AddressPolicy): Promise<LookupAddress[]> {
  const host = hostOf(url);
  let addresses: LookupAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (policy.resolver ?? systemResolver)(host);
    } catch (err) {
      throw new EndpointRefused(
        `Could not resolve ${host}: ${(err as NodeJS.ErrnoException).code ?? 'error'}.`,
        'unresolvable',
      );
    }
    if (addresses.length === 0) throw new EndpointRefused(`${host} has no addresses.`, 'unresolvable');
  }
  if (isInternal(url, policy)) {
    for (const { address } of addresses) {
      const refused = refusedInternalAddress(address);
      if (refused) throw new EndpointRefused(`${host} is refused: ${refused}.`, 'address');
    }
    return addresses;
  }
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy.allowHttpLoopback);
    if (refused) throw new EndpointRefused(`${host} is refused: ${refused}.`, 'address');
    if (url.protocol === 'http:' && ipaddr.parse(address).range() !== 'loopback') {
      throw new EndpointRefused(
        `http:// is allowed to loopback addresses only; ${host} is ${address}.`,
        'scheme',
      );
    }
  }
  return addresses;
}

/** Registration: the URL's form and every address its host resolves to now. Returns the normalised URL. */
export async function checkEndpointUrl(raw: string, policy: AddressPolicy): Promise<string> {
  const url = parseEndpointUrl(raw, policy);
  await vetAddresses(url, policy);
  return url.toString();
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:http(s).request that answers only with addresses already vetted for this request, so the
 * connection goes where the check looked. Node calls it with `all: true` when it may try several addresses.
 */
export function pinnedLookup(addresses: LookupAddress[]) {
  return (
    _hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    const usable = family ? addresses.filter((a) => a.family === family) : addresses;
    if (usable.length === 0) {
      const err: NodeJS.ErrnoException = new Error('no vetted address of the requested family');
      err.code = 'ENOTFOUND';
      callback(err, options.all ? [] : '', 0);
      return;
    }
    if (options.all) callback(null, usable);
    else callback(null, usable[0]!.address, usable[0]!.family);
  };
}

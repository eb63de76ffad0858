import type { LookupAddress } from 'node:dns';
import {
  AddressRefused,
  addressRange,
  isInternalHost,
  refusedAddress,
  type Resolver,
  systemResolver,
  vetHost,
} from '@pa/http-kit';

// The SSRF guard of the webhook endpoints. A URL is checked when it is registered, and every address
// its host resolves to is checked again when a delivery connects — the socket goes to the address that was vetted
// (the request's `lookup`), so a DNS answer that changes between the check and the connection cannot slip through.
// The address policy itself is @pa/http-kit's (address-policy.ts), shared with the gateway's mailboxes.

export { refusedAddress, type Resolver, systemResolver };

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

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function isInternal(url: URL, policy: AddressPolicy): boolean {
  return isInternalHost(hostOf(url), policy);
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
  try {
    addresses = await vetHost(host, { ...policy, allowLoopback: policy.allowHttpLoopback });
  } catch (err) {
    if (err instanceof AddressRefused) throw new EndpointRefused(err.message, err.reason);
    throw err;
  }
  if (url.protocol === 'http:' && !isInternal(url, policy)) {
    for (const { address } of addresses) {
      if (addressRange(address) !== 'loopback') {
        throw new EndpointRefused(
          `http:// is allowed to loopback addresses only; ${host} is ${address}.`,
          'scheme',
        );
      }
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

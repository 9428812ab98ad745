import dns from 'node:dns';
import net from 'node:net';

/**
 * Outbound requests to caller-chosen URLs (webhooks) must not reach the service's own networks
 * (SSRF): loopback, private, link-local, unspecified and other non-public ranges, in IPv4 and IPv6,
 * IPv4-mapped IPv6 included. Checked at registration and again at every connection (the lookup
 * of the HTTP request: DNS rebinding), unless private networks are explicitly allowed.
 */
const BLOCKED = new net.BlockList();
for (const [addr, bits] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) BLOCKED.addSubnet(addr, bits, 'ipv4');
for (const [addr, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of any IPv4, private ones included
] as const) BLOCKED.addSubnet(addr, bits, 'ipv6');

/** True when the address is one a webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
    // ::ffff:7f00:1 (the hex form of a mapped IPv4 address)
    const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
    if (hexMapped) {
      const hi = parseInt(hexMapped[1], 16);
      const lo = parseInt(hexMapped[2], 16);
      return BLOCKED.check(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, 'ipv4');
    }
    return BLOCKED.check(address, 'ipv6');
  }
  return true; // not an address at all: never trusted
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type HostCheck = 'ok' | 'private' | 'unresolvable';

/** Resolves the host (bounded by `timeoutMs`) and says whether every address it has is public. */
export async function checkPublicHost(host: string, timeoutMs = 5000): Promise<HostCheck> {
  if (net.isIP(host)) return isPrivateAddress(host) ? 'private' : 'ok';
  let timer: NodeJS.Timeout | undefined;
  try {
    const addresses = await Promise.race([
      dns.promises.lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('dns timeout')), timeoutMs))),
    ]);
    if (addresses.length === 0) return 'unresolvable';
    return addresses.some((a) => isPrivateAddress(a.address)) ? 'private' : 'ok';
  } catch {
    return 'unresolvable';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `lookup` for http.request that refuses private addresses: the address connected to is the
 * one checked, so a name that resolves to a public address at registration and to a private
 * one later (DNS rebinding) is refused at delivery.
 */
export const publicOnlyLookup: net.LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true, verbatim: true }, (err, addresses) => {
    if (err) return (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(err, []);
    const list = addresses as dns.LookupAddress[];
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) {
      const refused = Object.assign(new Error(`address of ${hostname} is not public`), { code: 'EPRIVATEADDRESS' });
      return (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(refused, []);
    }
    if ((options as dns.LookupOptions).all) return (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(null, list);
    return (callback as (e: Error | null, a: string, f: number) => void)(null, list[0].address, list[0].family);
  });
};

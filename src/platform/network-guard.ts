import dns from 'node:dns';
import net from 'node:net';

/**
 * Outbound requests to caller-chosen URLs (webhooks) must not reach the service's own networks
 * (SSRF): loopback, private, link-local, unspecified and other non-public ranges, in IPv4 and IPv6,
 * IPv6 forms that embed an IPv4 address included (embeddedIpv4). Checked at registration and again at every connection (the lookup
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
] as const)
  BLOCKED.addSubnet(addr, bits, 'ipv4');
for (const [addr, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
  ['64:ff9b::', 96], // NAT64 of any IPv4, private ones included
] as const)
  BLOCKED.addSubnet(addr, bits, 'ipv6');

/** Local-use NAT64 (RFC 8215): never a public destination, whatever it embeds. */
BLOCKED.addSubnet('64:ff9b:1::', 48, 'ipv6');

/** True when the address is one a webhook may not reach. */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const embedded = embeddedIpv4(address);
    if (embedded && BLOCKED.check(embedded, 'ipv4')) return true;
    return BLOCKED.check(address, 'ipv6');
  }
  return true; // not an address at all: never trusted
}

/**
 * The IPv4 address an IPv6 address carries, in the forms that reach it: IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-translated (`::ffff:0:0:0/96`), IPv4-compatible (`::a.b.c.d`, `::/96`),
 * NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`, the IPv4 in bits 16–47). Null for any other.
 */
export function embeddedIpv4(address: string): string | null {
  const w = ipv6Words(address);
  if (!w) return null;
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (w[0] === 0x2002) return v4(w[1], w[2]);
  const last = v4(w[6], w[7]);
  if (zero(0, 5) && (w[5] === 0xffff || w[5] === 0)) return last; // ::ffff:a.b.c.d, ::a.b.c.d
  if (zero(0, 4) && w[4] === 0xffff && w[5] === 0) return last; // ::ffff:0:a.b.c.d
  if (w[0] === 0x64 && w[1] === 0xff9b && zero(2, 6)) return last; // 64:ff9b::a.b.c.d
  return null;
}

/** The eight 16-bit words of a valid IPv6 address (zone id dropped, a trailing dotted IPv4 read). */
function ipv6Words(address: string): number[] | null {
  let text = address.split('%')[0].toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((h) => parseInt(h, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const words = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return words.length === 8 && words.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? words : null;
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
    const list = addresses;
    const bad = list.find((a) => isPrivateAddress(a.address));
    if (bad || list.length === 0) {
      const refused = Object.assign(new Error(`address of ${hostname} is not public`), { code: 'EPRIVATEADDRESS' });
      return (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(refused, []);
    }
    if (options.all) return (callback as (e: Error | null, a: dns.LookupAddress[]) => void)(null, list);
    return (callback as (e: Error | null, a: string, f: number) => void)(null, list[0].address, list[0].family);
  });
};

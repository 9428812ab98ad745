import net from 'node:net';

/**
 * The client address: the socket address, or the first `x-forwarded-for` hop when the socket
 * address is a proxy listed in TRUST_PROXY (addresses or CIDRs), so a client cannot pick its own.
 */
export function makeClientIp(trusted: string[]): (socketIp: string, forwardedFor: string | undefined) => string {
  const list = new net.BlockList();
  for (const entry of trusted) {
    const [addr, bits] = entry.split('/');
    const type = net.isIPv6(addr) ? 'ipv6' : 'ipv4';
    if (!net.isIP(addr)) throw new Error(`TRUST_PROXY: "${entry}" is not an address or CIDR`);
    if (bits === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, Number(bits), type);
  }
  return (socketIp, forwardedFor) => {
    const ip = socketIp.startsWith('::ffff:') ? socketIp.slice(7) : socketIp;
    if (!trusted.length || !forwardedFor || !net.isIP(ip)) return ip;
    if (!list.check(ip, net.isIPv6(ip) ? 'ipv6' : 'ipv4')) return ip;
    const first = forwardedFor.split(',')[0].trim();
    return net.isIP(first) ? first : ip;
  };
}

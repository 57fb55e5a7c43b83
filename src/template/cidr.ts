/**
 * `Fn::Cidr`: split an IPv4 or IPv6 block into `count` consecutive subnets of
 * `cidrBits` host bits each (subnet mask = 32 - cidrBits, or 128 - cidrBits).
 */

/** Thrown for invalid arguments; the resolver adds the template location. */
export class CidrError extends Error {}

function parseIpv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((acc, p) => (acc << 8n) | BigInt(Number(p)), 0n);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string): string[] => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (!all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

/** RFC 5952 text: lower case, no leading zeros, the longest run of two or more zero groups as `::`. */
function formatIpv6(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt((7 - i) * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** The `count` subnets of `ipBlock` with `cidrBits` host bits each. */
export function cidrSubnets(ipBlock: string, count: number, cidrBits: number): string[] {
  const slash = ipBlock.indexOf('/');
  if (slash < 0)
    throw new CidrError(`ipBlock ${JSON.stringify(ipBlock)} is not a CIDR block (address/prefix)`);
  const addressText = ipBlock.slice(0, slash);
  const prefixText = ipBlock.slice(slash + 1);
  const v6 = addressText.includes(':');
  const width = v6 ? 128 : 32;
  const address = v6 ? parseIpv6(addressText) : parseIpv4(addressText);
  if (address === undefined) throw new CidrError(`ipBlock ${JSON.stringify(ipBlock)} has an invalid address`);
  if (!/^\d+$/.test(prefixText) || Number(prefixText) > width)
    throw new CidrError(`ipBlock ${JSON.stringify(ipBlock)} has an invalid prefix length`);
  const prefix = Number(prefixText);
  if (!Number.isInteger(count) || count < 1 || count > 256)
    throw new CidrError(`count must be between 1 and 256, got ${count}`);
  const newPrefix = width - cidrBits;
  if (!Number.isInteger(cidrBits) || cidrBits < 0 || newPrefix < prefix) {
    throw new CidrError(
      `cidrBits ${cidrBits} does not fit in ${ipBlock}: the subnets would be larger than the block`,
    );
  }
  const available = 1n << BigInt(newPrefix - prefix);
  if (BigInt(count) > available) {
    throw new CidrError(
      `${ipBlock} holds only ${available} subnets of /${newPrefix}, ${count} were requested`,
    );
  }
  const hostMask = (1n << BigInt(width - prefix)) - 1n;
  const network = address & ~hostMask & ((1n << BigInt(width)) - 1n);
  const step = 1n << BigInt(cidrBits);
  return Array.from({ length: count }, (_, i) => {
    const subnet = network + BigInt(i) * step;
    return `${v6 ? formatIpv6(subnet) : formatIpv4(subnet)}/${newPrefix}`;
  });
}

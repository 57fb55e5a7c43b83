import { CidrError, cidrSubnets } from '../../../src/template/cidr';

describe('cidrSubnets (Fn::Cidr)', () => {
  it('splits an IPv4 block', () => {
    expect(cidrSubnets('10.0.0.0/16', 4, 8)).toEqual([
      '10.0.0.0/24',
      '10.0.1.0/24',
      '10.0.2.0/24',
      '10.0.3.0/24',
    ]);
  });

  it('starts from the network address when the block has host bits set', () => {
    expect(cidrSubnets('10.0.5.7/16', 1, 12)).toEqual(['10.0.0.0/20']);
  });

  it('splits an IPv6 block into /64s, written compressed', () => {
    expect(cidrSubnets('2600:1f14:ae2:d400::/56', 3, 64)).toEqual([
      '2600:1f14:ae2:d400::/64',
      '2600:1f14:ae2:d401::/64',
      '2600:1f14:ae2:d402::/64',
    ]);
    expect(cidrSubnets('2001:db8:0:0:1::/80', 2, 40)).toEqual([
      '2001:db8:0:0:1::/88',
      '2001:db8::1:100:0:0/88',
    ]);
  });

  it.each([
    ['10.0.0.0', 1, 8, 'not a CIDR block'],
    ['10.0.0.256/16', 1, 8, 'invalid address'],
    ['10.0.0.0/33', 1, 8, 'invalid prefix length'],
    ['10.0.0.0/24', 0, 4, 'count must be between 1 and 256'],
    ['10.0.0.0/24', 257, 4, 'count must be between 1 and 256'],
    ['10.0.0.0/24', 1, 9, 'does not fit'],
    ['10.0.0.0/24', 3, 7, 'holds only 2 subnets of /25'],
    ['fe80:::1/64', 1, 8, 'invalid address'],
  ])('refuses %s count %s bits %s', (block, count, bits, message) => {
    expect(() => cidrSubnets(block, count, bits)).toThrow(CidrError);
    expect(() => cidrSubnets(block, count, bits)).toThrow(message);
  });
});

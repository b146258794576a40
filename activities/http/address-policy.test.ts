import { createAddressPolicy, OutboundRefused, resolveAllowed } from './address-policy';

describe('address policy without an allow-list', () => {
  const policy = createAddressPolicy([]);

  test.each([
    ['127.0.0.1', 'loopback address'],
    ['127.255.0.9', 'loopback address'],
    ['::1', 'loopback address'],
    ['10.0.0.1', 'private address'],
    ['172.16.5.4', 'private address'],
    ['192.168.1.1', 'private address'],
    ['169.254.169.254', 'link-local address'],
    ['fe80::1', 'link-local address'],
    ['fd00::1', 'unique-local address'],
    ['100.64.0.1', 'carrier-grade NAT address'],
    ['0.0.0.0', 'unspecified address'],
    ['::', 'unspecified address'],
    ['224.0.0.1', 'multicast address'],
    ['ff02::1', 'multicast address'],
    ['255.255.255.255', 'broadcast address'],
    ['240.0.0.1', 'reserved address'],
    // IPv4-mapped forms are judged as the IPv4 address they carry.
    ['::ffff:169.254.169.254', 'link-local address'],
    ['::ffff:a9fe:a9fe', 'link-local address'],
    ['::ffff:7f00:1', 'loopback address'],
    ['[::1]', 'loopback address'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(policy.refusal(ip, 80)).toBe(reason);
  });

  test.each(['2002:a9fe:a9fe::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '64:ff9b::a9fe:a9fe'])(
    'refuses tunnelling / translation prefixes that can reach internal IPv4 (%s)',
    (ip) => {
      expect(policy.refusal(ip, 80)).not.toBeNull();
    },
  );

  test.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (ip) => {
    expect(policy.refusal(ip, 443)).toBeNull();
  });

  test('something that is not an IP is refused', () => {
    expect(policy.refusal('example.com', 80)).toBe('not a valid IP address');
  });
});

describe('address policy allow-list', () => {
  test('a bare IP allows every port', () => {
    const policy = createAddressPolicy(['127.0.0.1', '::1']);
    expect(policy.refusal('127.0.0.1', 1)).toBeNull();
    expect(policy.refusal('::1', 8080)).toBeNull();
    expect(policy.refusal('127.0.0.2', 80)).toBe('loopback address');
  });

  test('an IP with a port allows only that port, and says so', () => {
    const policy = createAddressPolicy(['127.0.0.1:8080', '[::1]:9090']);
    expect(policy.refusal('127.0.0.1', 8080)).toBeNull();
    expect(policy.refusal('127.0.0.1', 8081)).toBe('loopback address, not allow-listed on port 8081');
    expect(policy.refusal('::1', 9090)).toBeNull();
    expect(policy.refusal('::1', 8080)).not.toBeNull();
  });

  test('CIDR entries allow the whole network, IPv4-mapped addresses included', () => {
    const policy = createAddressPolicy(['10.0.0.0/8', 'fd00::/8', ' 192.168.1.0/24 ']);
    expect(policy.refusal('10.200.3.4', 80)).toBeNull();
    expect(policy.refusal('::ffff:10.1.1.1', 80)).toBeNull();
    expect(policy.refusal('fd12::5', 80)).toBeNull();
    expect(policy.refusal('192.168.1.77', 80)).toBeNull();
    expect(policy.refusal('192.168.2.1', 80)).toBe('private address');
    expect(policy.refusal('169.254.169.254', 80)).toBe('link-local address');
  });

  test('an IPv4-mapped entry counts as its IPv4 address', () => {
    expect(createAddressPolicy(['::ffff:127.0.0.1']).refusal('127.0.0.1', 80)).toBeNull();
  });

  test('blank entries (an empty variable split on commas) are ignored', () => {
    expect(() => createAddressPolicy(['', '  '])).not.toThrow();
  });

  test.each([
    ['localhost', /"localhost" is not an IP address/],
    ['8080', /"8080" is not an IP address/],
    ['0x7f.1', /is not an IP address/],
    ['300.1.1.1', /is not an IP address/],
    ['127.0.0.1:0', /port must be 1-65535/],
    ['127.0.0.1:70000', /port must be 1-65535/],
    ['[::1]:', /is not an IP address/],
    ['10.0.0.0/33', /prefix length must be 0-32/],
    ['fd00::/129', /prefix length must be 0-128/],
    ['10.0.0.0/abc', /prefix length/],
    ['::ffff:10.0.0.0/104', /IPv4 form/],
  ])('rejects the bad entry %s', (entry, message) => {
    expect(() => createAddressPolicy(['127.0.0.1', entry])).toThrow(message);
    expect(() => createAddressPolicy([entry])).toThrow(`Invalid outbound allow-list entry "${entry}"`);
  });
});

describe('resolveAllowed', () => {
  const policy = createAddressPolicy([]);

  test('an IP literal is judged without DNS', async () => {
    await expect(resolveAllowed(policy, '8.8.8.8', 443)).resolves.toBe('8.8.8.8');
    await expect(resolveAllowed(policy, '169.254.169.254', 80)).rejects.toThrow(
      new OutboundRefused(
        'Refused to connect to 169.254.169.254 (link-local address); an operator can allow it by adding 169.254.169.254 to HTTP_OUTBOUND_ALLOW',
      ),
    );
  });

  test('a hostname is refused naming the host and the address it resolves to', async () => {
    await expect(resolveAllowed(policy, 'localhost', 80)).rejects.toThrow(
      /^Refused to connect to localhost \((127\.0\.0\.1|::1), loopback address\); an operator can allow it by adding (127\.0\.0\.1|::1) to HTTP_OUTBOUND_ALLOW/,
    );
  });

  test('a hostname resolves to an allowed address', async () => {
    await expect(resolveAllowed(createAddressPolicy(['127.0.0.1', '::1']), 'localhost', 80)).resolves.toMatch(
      /^(127\.0\.0\.1|::1)$/,
    );
  });
});

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

  test.each(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows public %s', (ip) => {
    expect(policy.refusal(ip, 443)).toBeNull();
  });

  test('something that is not an IP is refused', () => {
    expect(policy.refusal('example.com', 80)).toBe('not a valid IP address');
  });
});

// Teredo stores the client's IPv4 inverted: 10.0.0.1 is f5ff:fffe, 8.8.8.8 is f7f7:f7f7.
describe('IPv6 forms that carry an IPv4 address are judged by it', () => {
  const policy = createAddressPolicy([]);

  test.each([
    // IPv4-compatible (::/96)
    ['::a9fe:a9fe', 'link-local address'],
    ['::169.254.169.254', 'link-local address'],
    ['::7f00:1', 'loopback address'],
    ['::a00:1', 'private address'],
    ['::2', 'unspecified address'],
    ['[::a9fe:a9fe]', 'link-local address'],
    // IPv4-mapped (::ffff:0:0/96)
    ['::ffff:10.0.0.1', 'private address'],
    // IPv4-translated (::ffff:0:0:0/96)
    ['::ffff:0:a9fe:a9fe', 'link-local address'],
    ['::ffff:0:127.0.0.1', 'loopback address'],
    // NAT64 well-known prefix, and its local-use range refused whole
    ['64:ff9b::a9fe:a9fe', 'link-local address'],
    ['64:ff9b::10.0.0.1', 'private address'],
    ['64:ff9b:1::808:808', 'local-use NAT64 address'],
    ['64:ff9b:1:ffff::1', 'local-use NAT64 address'],
    // 6to4: IPv4 in bits 16-47
    ['2002:a9fe:a9fe::1', 'link-local address'],
    ['2002:a00:1::1', 'private address'],
    ['2002:7f00:1:1::5', 'loopback address'],
    // Teredo: server in bits 32-63, client inverted in the last 32 bits; both must be public
    ['2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7', 'link-local address'],
    ['2001:0:808:808:8000:63bf:f5ff:fffe', 'private address'],
    ['2001:0:808:808:8000:63bf:80ff:fffe', 'loopback address'],
    // ISATAP interface ids, under a public prefix or a 6to4 one
    ['2606:4700::5efe:a9fe:a9fe', 'link-local address'],
    ['2606:4700::200:5efe:10.0.0.1', 'private address'],
    ['2606:4700::100:5efe:7f00:1', 'loopback address'],
    ['2002:808:808:1:0:5efe:a00:1', 'private address'],
    ['fe80::5efe:808:808', 'link-local address'],
    // The rest of ::/8, where odd spellings of these forms live
    ['::1:a9fe:a9fe', 'reserved address'],
    ['64:ff9b:2::a9fe:a9fe', 'reserved address'],
    ['0:0:0:1::1', 'reserved address'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(policy.refusal(ip, 80)).toBe(reason);
  });

  test.each([
    '::808:808',
    '::8.8.8.8',
    '::ffff:0:808:808',
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    '2002:0808:0808::1',
    '2002:5db8:d70e:1::',
    '2001:0:808:808:8000:63bf:f7f7:f7f7',
    '2606:4700::5efe:808:808',
    '2606:4700::200:5efe:8.8.8.8',
  ])('allows %s, whose IPv4 address is public', (ip) => {
    expect(policy.refusal(ip, 443)).toBeNull();
  });

  test('an embedded form is allowed when its IPv4 address is, port rule included', () => {
    const allowing = createAddressPolicy(['127.0.0.1:8080', '10.0.0.0/8', '169.254.169.254']);
    for (const ip of ['::7f00:1', '::ffff:0:7f00:1', '64:ff9b::7f00:1', '2002:7f00:1::1']) {
      expect(allowing.refusal(ip, 8080)).toBeNull();
      expect(allowing.refusal(ip, 8081)).toBe('loopback address, not allow-listed on port 8081');
    }
    expect(allowing.refusal('2002:a01:203::1', 80)).toBeNull();
    expect(allowing.refusal('2606:4700::5efe:a9fe:a9fe', 80)).toBeNull();
    // Teredo: the server is allowed, the client is not.
    expect(allowing.refusal('2001:0:a00:1:8000:63bf:5601:5656', 80)).toBe('link-local address');
    expect(allowing.refusal('2001:0:a00:1:8000:63bf:f5ff:fffe', 80)).toBeNull();
    // The local-use NAT64 range stays refused whatever the IPv4 entries say.
    expect(createAddressPolicy(['0.0.0.0/0']).refusal('64:ff9b:1::a00:1', 80)).toBe('local-use NAT64 address');
  });

  test('IPv6 entries never allow an embedded form, only its own IPv6 part', () => {
    const policy6 = createAddressPolicy(['fd00::/8', '::/0']);
    expect(policy6.refusal('::a9fe:a9fe', 80)).toBe('link-local address');
    // ISATAP under an allowed prefix: the IPv6 part passes, the IPv4 part is still judged.
    expect(policy6.refusal('fd00::5efe:a00:1', 80)).toBe('private address');
    expect(createAddressPolicy(['fd00::/8', '10.0.0.1']).refusal('fd00::5efe:a00:1', 80)).toBeNull();
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
    ['64:ff9b::/96', /list the IPv4 address instead/],
    ['2002::/16', /list the IPv4 address instead/],
    ['[::7f00:1]:8080', /list the IPv4 address instead/],
    ['2001:0:a00:1::1', /list the IPv4 address instead/],
    ['64:ff9b:1::/48', /list the IPv4 address instead/],
  ])('rejects the bad entry %s', (entry, message) => {
    expect(() => createAddressPolicy(['127.0.0.1', entry])).toThrow(message);
    expect(() => createAddressPolicy([entry])).toThrow(`Invalid outbound allow-list entry "${entry}"`);
  });
});

describe('resolveAllowed', () => {
  const policy = createAddressPolicy([]);

  test('an IP literal is judged without DNS; the refusal names the host and the kind of range', async () => {
    await expect(resolveAllowed(policy, '8.8.8.8', 443)).resolves.toBe('8.8.8.8');
    await expect(resolveAllowed(policy, '169.254.169.254', 80)).rejects.toThrow(
      new OutboundRefused('Refused to connect to 169.254.169.254 (link-local address): address not allowed; an operator can allow it in HTTP_OUTBOUND_ALLOW'),
    );
  });

  test.each([
    ['::a9fe:a9fe', '169.254.169.254'],
    ['::ffff:7f00:1', '127.0.0.1'],
    ['64:ff9b::a00:1', '10.0.0.1'],
    ['2002:a00:1::1', '10.0.0.1'],
  ])('a refusal of %s does not spell out the IPv4 address it carries', async (host, ipv4) => {
    const err = (await resolveAllowed(policy, host, 80).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(OutboundRefused);
    expect(err.message).toMatch(new RegExp(`^Refused to connect to ${host} \\(.+ address\\): address not allowed;`));
    expect(err.message).not.toContain(ipv4);
  });

  test('a hostname is refused naming the host, never the address it resolves to', async () => {
    const err = (await resolveAllowed(policy, 'localhost', 80).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe('Refused to connect to localhost (loopback address): address not allowed; an operator can allow it in HTTP_OUTBOUND_ALLOW');
    expect(err.message).not.toMatch(/127\.0\.0\.1|::1/);
  });

  test('a hostname resolves to an allowed address', async () => {
    await expect(resolveAllowed(createAddressPolicy(['127.0.0.1', '::1']), 'localhost', 80)).resolves.toMatch(/^(127\.0\.0\.1|::1)$/);
  });
});

import { ConnectionTypeCatalog } from './catalog';

describe('ConnectionTypeCatalog', () => {
  const catalog = new ConnectionTypeCatalog();

  // Validators compile at first use; a schema strict mode refuses must still fail here, not at a user's first check.
  it.each(catalog.list())('compiles the %s schema and refuses a config that is no object', (type) => {
    const check = catalog.check(type, 'not an object');
    expect(check.ok).toBe(false);
  });

  it("treats a custom config's fields named like Object's methods as secrets, like every other custom field", () => {
    for (const key of ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', 'apiKey']) expect(catalog.isWriteOnly('custom', key)).toBe(true);
    const config = JSON.parse('{"constructor": "s1", "toString": "s2", "__proto__": "s3"}') as Record<string, unknown>;
    expect(catalog.secretValues('custom', config).sort()).toEqual(['s1', 's2', 's3']);
  });

  it('keeps declared non-secret fields readable', () => {
    expect(catalog.isWriteOnly('api-key', 'headerName')).toBe(false);
    expect(catalog.isWriteOnly('api-key', 'apiKey')).toBe(true);
  });
});

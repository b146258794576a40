import { ConnectionTypeCatalog } from './catalog';

describe('ConnectionTypeCatalog', () => {
  const catalog = new ConnectionTypeCatalog();

  // Validators compile at first use; a schema strict mode refuses must still fail here, not at a user's first check.
  it.each(catalog.list())('compiles the %s schema and refuses a config that is no object', (type) => {
    const check = catalog.check(type, 'not an object');
    expect(check.ok).toBe(false);
  });
});

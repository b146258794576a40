import { generateMasterKey, MasterKeyring } from '../src/crypto/master-keyring';
import { OrganizationKeys } from '../src/crypto/organization-keys';
import { OrganizationKeysRepository } from '../src/crypto/organization-keys.repository';
import { SecretBox } from '../src/crypto/secret-box';
import { as, type Harness, startHarness } from './harness';
import { createTestOrg } from './factories';

let h: Harness;
beforeAll(async () => {
  // Its own database: re-wrapping touches every organization's key.
  h = await startHarness({ isolatedDatabase: true });
});
afterAll(() => h.close());

test('re-wrapping every organization key under a new master key keeps every secret readable', async () => {
  const org = await createTestOrg(h.services);
  const created = await as(h.app, org.ownerToken)
    .post('/connections')
    .send({ name: 'rotating', type: 'basic-auth', config: { username: 'u', password: 'before-rotation' } });
  expect(created.status).toBe(201);

  const oldKey = h.services.config.crypto.masterKey!;
  const newKey = generateMasterKey();
  // The service runs with the new key current and the old one still accepted while the re-wrap runs.
  const during = new OrganizationKeys(new OrganizationKeysRepository(h.services.db), new MasterKeyring(newKey, [oldKey]));
  const result = await during.rewrapAll();
  expect(result.rewrapped).toBeGreaterThanOrEqual(1);
  expect((await during.rewrapAll()).rewrapped).toBe(0);

  // Afterwards the old key is no longer needed, and no longer works.
  const after = new SecretBox(new OrganizationKeys(new OrganizationKeysRepository(h.services.db), new MasterKeyring(newKey)));
  const [row] = await h.services.db.query('SELECT config_encrypted FROM connections WHERE id = $1', [created.body.id]);
  expect(JSON.parse(await after.decrypt(org.organizationId, `connection:${created.body.id}`, row.config_encrypted))).toMatchObject({
    password: 'before-rotation',
  });
  const stale = new SecretBox(new OrganizationKeys(new OrganizationKeysRepository(h.services.db), new MasterKeyring(oldKey)));
  await expect(stale.decrypt(org.organizationId, `connection:${created.body.id}`, row.config_encrypted)).rejects.toThrow('could not be decrypted');
});

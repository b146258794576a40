import { randomBytes } from 'node:crypto';
import { DecryptionError, open, seal } from './aead';
import { MasterKeyring, generateMasterKey } from './master-keyring';

const key = randomBytes(32);

describe('AES-256-GCM envelopes', () => {
  test('round trip', () => {
    const envelope = seal(key, Buffer.from('s3cret ✓'), 'org:a|connection:1');
    expect(envelope).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(envelope).not.toContain('s3cret');
    expect(open(key, envelope, 'org:a|connection:1').toString()).toBe('s3cret ✓');
  });

  test('same plaintext twice gives different ciphertexts (random IV)', () => {
    expect(seal(key, Buffer.from('x'), 'a')).not.toBe(seal(key, Buffer.from('x'), 'a'));
  });

  test('another organization or record (associated data) fails', () => {
    const envelope = seal(key, Buffer.from('secret'), 'org:a|connection:1');
    expect(() => open(key, envelope, 'org:b|connection:1')).toThrow(DecryptionError);
    expect(() => open(key, envelope, 'org:a|connection:2')).toThrow(DecryptionError);
  });

  test('any flipped byte, truncation or wrong key fails', () => {
    const envelope = seal(key, Buffer.from('secret value'), 'aad');
    const [v, iv, body, tag] = envelope.split('.');
    const flip = (part: string) => {
      const b = Buffer.from(part, 'base64url');
      b[0] ^= 1;
      return b.toString('base64url');
    };
    for (const tampered of [
      [v, flip(iv), body, tag],
      [v, iv, flip(body), tag],
      [v, iv, body, flip(tag)],
      [v, iv, body.slice(0, -2), tag],
      ['v2', iv, body, tag],
      [v, iv, body],
    ]) {
      expect(() => open(key, tampered.join('.'), 'aad')).toThrow(DecryptionError);
    }
    expect(() => open(randomBytes(32), envelope, 'aad')).toThrow(DecryptionError);
  });

  test('the error never carries plaintext or key material', () => {
    const envelope = seal(key, Buffer.from('top-secret'), 'aad');
    try {
      open(key, envelope, 'other');
      throw new Error('should have failed');
    } catch (err) {
      expect(String((err as Error).message)).toBe('Ciphertext could not be decrypted');
    }
  });
});

describe('master keyring', () => {
  test('wraps and unwraps a data key bound to its organization', () => {
    const ring = new MasterKeyring(generateMasterKey());
    const dataKey = randomBytes(32);
    const { wrappedKey, masterKeyId } = ring.wrap(dataKey, 'org-1');
    expect(ring.unwrap(wrappedKey, masterKeyId, 'org-1').equals(dataKey)).toBe(true);
    expect(() => ring.unwrap(wrappedKey, masterKeyId, 'org-2')).toThrow(DecryptionError);
  });

  test('a previous key still unwraps, new wraps use the current key', () => {
    const oldKey = generateMasterKey();
    const newKey = generateMasterKey();
    const dataKey = randomBytes(32);
    const old = new MasterKeyring(oldKey).wrap(dataKey, 'org-1');
    const rotated = new MasterKeyring(newKey, [oldKey]);
    expect(rotated.unwrap(old.wrappedKey, old.masterKeyId, 'org-1').equals(dataKey)).toBe(true);
    expect(rotated.wrap(dataKey, 'org-1').masterKeyId).not.toBe(old.masterKeyId);
    expect(() => new MasterKeyring(newKey).unwrap(old.wrappedKey, old.masterKeyId, 'org-1')).toThrow(DecryptionError);
  });

  test('rejects a master key that is not 32 bytes', () => {
    expect(() => new MasterKeyring(Buffer.alloc(16).toString('base64'))).toThrow('32 bytes');
  });
});

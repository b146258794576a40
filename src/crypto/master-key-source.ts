import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config';
import type { Logger } from '../logging/logger';
import { generateMasterKey, MasterKeyring } from './master-keyring';

export const MASTER_KEY_FILE = 'master.key';
export const PREVIOUS_MASTER_KEYS_FILE = 'master.previous.keys';

/**
 * The master keyring: MASTER_KEY (and MASTER_KEY_PREVIOUS) from the
 * environment, or in embedded mode a key generated once into DATA_DIR.
 */
export function loadMasterKeyring(config: Config, logger: Logger): MasterKeyring {
  if (config.crypto.masterKey) {
    return new MasterKeyring(config.crypto.masterKey, config.crypto.previousMasterKeys);
  }
  const file = path.join(config.dataDir, MASTER_KEY_FILE);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(file, generateMasterKey() + '\n', { mode: 0o600, flag: 'wx' });
    logger.warn(
      { file },
      '!!! MASTER_KEY is not set: generated a master key into the data directory. ' +
        'Anyone who can read this file can decrypt every secret. Set MASTER_KEY outside development. !!!',
    );
  } else {
    logger.warn({ file }, 'MASTER_KEY is not set: using the master key file in the data directory (development only)');
  }
  const previousFile = path.join(config.dataDir, PREVIOUS_MASTER_KEYS_FILE);
  const previous = fs.existsSync(previousFile)
    ? fs
        .readFileSync(previousFile, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
    : [];
  return new MasterKeyring(fs.readFileSync(file, 'utf8').trim(), [...previous, ...config.crypto.previousMasterKeys]);
}

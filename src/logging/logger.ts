import pino, { type Logger } from 'pino';

/**
 * Paths censored in every log line. Request bodies are never logged, but a
 * developer may still log an object that carries a secret; these keys catch
 * the usual names wherever they sit (two levels deep).
 */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'password',
  'apiKey',
  'token',
  'secret',
  'config',
  'value',
  'values',
  'variables',
  'masterKey',
  'clientSecret',
  'privateKey',
];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  ...SECRET_KEYS.flatMap((k) => [k, `*.${k}`, `*.*.${k}`]),
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: 'flowbase' },
    },
    destination,
  );
}

export type { Logger };

import { Writable } from 'node:stream';
import { createLogger } from './logger';

test('secret-looking fields are redacted wherever they sit', () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger('info', sink as never);
  logger.info({ req: { headers: { authorization: 'Bearer fbt_abc' } }, connection: { config: { apiKey: 'sk-123' } }, password: 'hunter2' }, 'x');
  const out = lines.join('');
  expect(out).not.toContain('fbt_abc');
  expect(out).not.toContain('sk-123');
  expect(out).not.toContain('hunter2');
  expect(out).toContain('[redacted]');
});

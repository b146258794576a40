import { Writable } from 'node:stream';

/** A sink that counts the lines and bytes of what flows into it, keeping none of it (CSV rows are lines). */
export function lineCounter(): { sink: Writable; counts: { lines: number; bytes: number } } {
  const counts = { lines: 0, bytes: 0 };
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      counts.bytes += chunk.length;
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) counts.lines++;
      done();
    },
  });
  return { sink, counts };
}

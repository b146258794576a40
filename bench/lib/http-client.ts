import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import { lineCounter } from './csv-counter';

/**
 * Requests to the benchmarked service through node:http, each with its own
 * time bound (fetch's own bounds are shorter than building a big serving
 * relation or exporting a million rows may take).
 */

/** A JSON request as `token`; answers the status and the parsed body (the text when it is not JSON). */
export function requestJson(method: string, url: string, token: string, body: unknown, timeoutMs: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined });
        } catch {
          resolve({ status: res.statusCode ?? 0, body: text });
        }
      });
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url}: no answer within ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** POSTs a CSV export and counts what streams back, without keeping it; rejects unless the answer is 200. */
export function exportCsv(url: string, token: string, body: unknown, timeoutMs: number): Promise<{ lines: number; bytes: number; contentType: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => reject(new Error(`export: ${res.statusCode} ${text.slice(0, 2000)}`)));
        return;
      }
      const { sink, counts } = lineCounter();
      pipeline(res, sink).then(() => resolve({ ...counts, contentType: String(res.headers['content-type']) }), reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error('export: no end within the time bound')));
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

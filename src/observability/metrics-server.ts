import http, { type Server } from 'node:http';
import { collectProcessMetrics, registry } from './metrics';

/**
 * Serves GET /metrics from the process's registry on a port of its own (METRICS_PORT), apart from the API: the figures
 * are for the operator's scraper, not for callers of the public port, and need no token there. Anything else is 404.
 * Resolves once listening; rejects when the port cannot be taken.
 */
export function startMetricsServer(port: number, host: string): Promise<Server> {
  collectProcessMetrics();
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: the metrics are at GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      // A collector's error text is the process's own business, not the scraper's: a fixed answer (Prometheus logs the 500).
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected\n'),
    );
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

/** Stops accepting scrapes and closes the open ones (a scraper keeps its connection alive between scrapes). */
export function stopMetricsServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

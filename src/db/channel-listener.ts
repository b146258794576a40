import { Client } from 'pg';
import type { Logger } from '../logging/logger';

const RECONNECT_MS = 1_000;
/** Connecting, LISTEN and each heartbeat are bounded: a connection that does not answer is lost. */
const CONNECT_TIMEOUT_MS = 10_000;
const QUERY_TIMEOUT_MS = 5_000;
/**
 * A connection can die without a word (a dropped network path closes nothing):
 * a heartbeat this often finds out, so such a loss is noticed within
 * HEARTBEAT_MS + QUERY_TIMEOUT_MS rather than at TCP's own pace.
 */
const HEARTBEAT_MS = 10_000;

export interface ChannelEvents {
  /** A notification arrived on the channel. */
  notified(): void;
  /** The LISTEN is in place (again): notifications from now on arrive. */
  listening(): void;
  /** The connection is gone: notifications may be missed until `listening` again. */
  lost(): void;
}

/**
 * `LISTEN <channel>` on a connection of its own (a pooled one would drop the
 * LISTEN when returned), reconnecting every second after it is lost.
 */
export class ChannelListener {
  private client: Client | undefined;
  private closed = false;
  private reconnect: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly channel: string,
    private readonly logger: Logger,
    private readonly events: ChannelEvents,
  ) {}

  start(): void {
    void this.listen();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnect);
    clearInterval(this.heartbeat);
    const client = this.client;
    this.client = undefined;
    this.events.lost();
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    const client = new Client({
      connectionString: this.databaseUrl,
      application_name: `flowbase-listen-${this.channel}`,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
    });
    this.client = client;
    const lost = (err?: Error) => {
      if (this.client !== client) return;
      this.client = undefined;
      clearInterval(this.heartbeat);
      this.events.lost();
      client.end().catch(() => undefined);
      if (this.closed) return;
      this.logger.warn({ channel: this.channel, err: err?.message }, 'database listener lost; reconnecting');
      this.reconnect = setTimeout(() => void this.listen(), RECONNECT_MS);
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (n) => {
      if (n.channel === this.channel) this.events.notified();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      if (this.client !== client) return;
      this.heartbeat = setInterval(() => client.query('SELECT 1').catch(lost), HEARTBEAT_MS);
      this.heartbeat.unref();
      this.events.listening();
    } catch (err) {
      lost(err as Error);
    }
  }
}

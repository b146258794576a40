import { Drop } from 'liquidjs';
import { CONNECTIONS_ROOT, ENV_ROOT, isTemplate, MAX_TEMPLATE_DEPTH } from '../../src/templates/template-engine';
import { TemplateError, type TemplateRenderer } from '../../src/templates/template-renderer';
import type { StepRequest } from '../../workflows/run.types';
import { StepError } from './step-errors';

export interface ResolvedConnection {
  id: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  /** The config values that are secrets (write-only fields), masked wherever the step records something. */
  secretValues: string[];
}

/** Where a step's secrets come from: decrypted on demand, kept in memory only. */
export interface SecretSources {
  environmentValues(organizationId: string, environmentId: string): Promise<Record<string, string>>;
  connectionByName(organizationId: string, name: string): Promise<ResolvedConnection | undefined>;
}

/** Tags a connection config reached through `$connections.<name>`, so a connection field can tell which connection it named. */
const CONNECTION = Symbol('connection');

/** Secret values shorter than this are not masked: replacing every "1" or "eu" would garble outputs. */
const MIN_MASKED_LENGTH = 4;
export const MASK = '[secret]';

/**
 * The template roots of one step run: `initial`, earlier steps, and `$env` /
 * `$connections`, which decrypt on first use. Every secret value a step
 * touches is remembered so its rendered input, output and error can be
 * masked before they are stored anywhere.
 */
export class StepScope {
  private readonly secrets = new Set<string>();
  private environment?: Promise<Record<string, string>>;
  private readonly connections = new Map<string, Promise<ResolvedConnection>>();
  readonly scope: object;

  constructor(
    private readonly renderer: TemplateRenderer,
    private readonly sources: SecretSources,
    private readonly run: StepRequest['run'],
    context: { initial: unknown; steps: Record<string, unknown> },
  ) {
    this.scope = this.scopeAt(0, [], context);
  }

  /** Renders a template string (see TemplateRenderer.render). */
  render(text: string): Promise<unknown> {
    return this.renderer.render(text, this.scope);
  }

  renderDeep(value: unknown): Promise<unknown> {
    return this.renderer.renderDeep(value, this.scope);
  }

  renderStrings(map: Record<string, string> | undefined): Promise<Record<string, string>> {
    return this.renderer.renderStrings(map, this.scope);
  }

  test(condition: string): Promise<boolean> {
    return this.renderer.test(condition, this.scope);
  }

  /**
   * A step's `connection` field: a plain name, `{{ $connections.<name> }}`,
   * or a template such as `{{ $env.CRM }}` whose value is either of those (8).
   */
  async connection(field: string): Promise<ResolvedConnection> {
    const value = await this.render(field);
    if (value !== null && typeof value === 'object' && CONNECTION in value) return (value as { [CONNECTION]: ResolvedConnection })[CONNECTION];
    const name = typeof value === 'string' ? value.trim() : '';
    if (!name) throw new StepError(`The connection field "${field}" resolved to nothing`, 'ConnectionNotFound');
    return this.loadConnection(name);
  }

  /**
   * Marks a value (or one derived from secrets, such as a Basic auth header)
   * for masking, with the forms it takes once encoded into a URL or JSON text.
   */
  addSecret(value: string): void {
    if (value.length < MIN_MASKED_LENGTH) return;
    const forms = [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), JSON.stringify(value).slice(1, -1)];
    for (const form of forms) this.secrets.add(form);
  }

  /** A copy of `value` with every secret this step touched replaced by [secret]. */
  mask<T>(value: T): T {
    if (this.secrets.size === 0) return value;
    const pattern = new RegExp([...this.secrets].sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'g');
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return v.replace(pattern, MASK);
      if (Array.isArray(v)) return v.map(walk);
      if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [walk(k), walk(x)]));
      return v;
    };
    return walk(value) as T;
  }

  private scopeAt(depth: number, chain: string[], context?: { initial: unknown; steps: Record<string, unknown> }): object {
    const base = context ? { ...context.steps, initial: context.initial } : this.scope;
    return { ...base, [ENV_ROOT]: new EnvDrop(this, depth, chain), [CONNECTIONS_ROOT]: new ConnectionsDrop(this) };
  }

  /**
   * `$env.<key>`: its value, itself rendered when it holds a template, at most
   * MAX_TEMPLATE_DEPTH levels deep. Not memoized: how deep a value sits depends
   * on the path that reached it. A cycle is refused as soon as it closes.
   */
  async envValue(key: string, depth: number, chain: string[]): Promise<unknown> {
    const values = await this.environmentValues();
    if (!Object.hasOwn(values, key)) return undefined;
    const raw = values[key];
    this.addSecret(raw);
    const path = [...chain, `$env.${key}`];
    if (!isTemplate(raw)) return raw;
    if (chain.includes(`$env.${key}`)) {
      throw new TemplateDepthError(`Template resolution goes deeper than ${MAX_TEMPLATE_DEPTH} levels: ${path.join(' → ')} (a loop)`);
    }
    if (depth + 1 > MAX_TEMPLATE_DEPTH) {
      throw new TemplateDepthError(`Template resolution goes deeper than ${MAX_TEMPLATE_DEPTH} levels: ${path.join(' → ')}`);
    }
    let value: unknown;
    try {
      value = await this.renderer.render(raw, this.scopeAt(depth + 1, path));
    } catch (err) {
      if (err instanceof TemplateDepthError || err instanceof StepError) throw err;
      // liquidjs quotes the broken part of the template, which here is part of a secret value.
      throw new TemplateError(`${path.join(' → ')} holds text that is not a valid template`);
    }
    if (typeof value === 'string') this.addSecret(value);
    return value;
  }

  private environmentValues(): Promise<Record<string, string>> {
    const { organizationId, environmentId } = this.run;
    if (!environmentId) {
      return Promise.reject(new TemplateError('$env is used but the run has no environment: set the workflow\'s default environment or call with ?env=<name>'));
    }
    this.environment ??= this.sources.environmentValues(organizationId, environmentId);
    return this.environment;
  }

  async connectionConfig(name: string): Promise<object> {
    const connection = await this.loadConnection(name);
    const config = { ...connection.config };
    Object.defineProperty(config, CONNECTION, { value: connection, enumerable: false });
    return config;
  }

  private loadConnection(name: string): Promise<ResolvedConnection> {
    let loading = this.connections.get(name);
    if (!loading) {
      loading = this.sources.connectionByName(this.run.organizationId, name).then((found) => {
        if (!found) throw new StepError(`Connection "${name}" does not exist (it may have been deleted)`, 'ConnectionNotFound');
        for (const value of found.secretValues) this.addSecret(value);
        return found;
      });
      this.connections.set(name, loading);
    }
    return loading;
  }
}

/** Resolution past MAX_TEMPLATE_DEPTH, or a loop; names the chain of variables, never their values. */
class TemplateDepthError extends TemplateError {}

class EnvDrop extends Drop {
  constructor(
    private readonly owner: StepScope,
    private readonly depth: number,
    private readonly chain: string[],
  ) {
    super();
  }

  override liquidMethodMissing(key: string | number): Promise<unknown> {
    return this.owner.envValue(String(key), this.depth, this.chain);
  }
}

class ConnectionsDrop extends Drop {
  constructor(private readonly owner: StepScope) {
    super();
  }

  override liquidMethodMissing(key: string | number): Promise<unknown> {
    return this.owner.connectionConfig(String(key));
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

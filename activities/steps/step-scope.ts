import { SECRET_TRACKER, type SecretTracker } from '../../src/templates/secret-filters';
import type { DollarNeeds } from '../../src/templates/template-analysis';
import { CONNECTIONS_ROOT, ENV_ROOT, isTemplate, MAX_TEMPLATE_DEPTH, RESUME_ROOT } from '../../src/templates/template-engine';
import { TemplateError, type LoneExpressions, type TemplateRenderer } from '../../src/templates/template-renderer';
import type { StepRequest } from '../../workflows/run.types';
import { SecretSet } from './secret-set';
import { StepError } from './step-errors';

export interface ResolvedConnection {
  id: string;
  name: string;
  type: string;
  config: Record<string, unknown>;
  /** The config values that are secrets (write-only fields), masked wherever the step records something. */
  secretValues: string[];
}

/** One environment variable as a run reads it: its value, and whether it is masked in what the service records. */
export interface EnvironmentValue {
  value: string;
  secret: boolean;
}

/** Where a step's secrets come from: decrypted on demand, kept in memory only. */
export interface SecretSources {
  environmentValues(organizationId: string, environmentId: string): Promise<Record<string, EnvironmentValue>>;
  connectionByName(organizationId: string, name: string): Promise<ResolvedConnection | undefined>;
  /** The resume link of a run's event wait (`$resume.<stepId>`): whoever holds it can resume the run, so it is a secret too. */
  resumeLink?(executionId: string, stepId: string): string;
}

/** Tags a connection config reached through `$connections.<name>`, so a connection field can tell which connection it named. */
const CONNECTION = Symbol('connection');

export { MASK } from './secret-set';

/**
 * The template roots of one step run: `initial`, earlier steps' outputs,
 * `$env` and `$connections`. A template sees data only: before it renders,
 * the `$env` keys and connections it names are resolved (decrypted, and an
 * environment value holding a template rendered in turn, at most
 * MAX_TEMPLATE_DEPTH deep) into plain objects without prototypes. Nothing
 * with a method, no loader, no service is ever in scope. Every secret value
 * a step touches is remembered so its rendered input, output and error can be
 * masked before they are stored anywhere.
 */
export class StepScope {
  readonly secrets = new SecretSet();
  private environment?: Promise<Record<string, EnvironmentValue>>;
  private readonly connections = new Map<string, Promise<ResolvedConnection>>();
  private readonly topLevel = new Map<string, Promise<unknown>>();
  /** The step outputs, under a prototype-less root (`initial` joins them when a template reads it). */
  private readonly data: Record<string, unknown>;
  private readonly initial: () => Promise<unknown>;
  private loadedInitial?: Promise<unknown>;

  constructor(
    private readonly renderer: TemplateRenderer,
    private readonly sources: SecretSources,
    private readonly run: StepRequest['run'],
    /** `initial` as a value, or a loader called the first time a template reads it. */
    context: { initial: unknown | (() => Promise<unknown>); steps: Record<string, unknown> },
    /** How a lone `{{ expression }}` in a JSON value renders (the run's `typed-values` patch chooses). */
    private readonly lone: LoneExpressions = 'objects',
  ) {
    this.data = Object.assign(Object.create(null), context.steps);
    const { initial } = context;
    this.initial = typeof initial === 'function' ? () => (this.loadedInitial ??= (initial as () => Promise<unknown>)()) : () => Promise.resolve(initial);
  }

  /** Renders a template string (see TemplateRenderer.render). */
  render(text: string): Promise<unknown> {
    return this.renderer.render(text, this.scopeAt(0, []));
  }

  renderDeep(value: unknown): Promise<unknown> {
    return this.renderer.renderDeep(value, this.scopeAt(0, []), this.lone);
  }

  renderStrings(map: Record<string, string> | undefined): Promise<Record<string, string>> {
    return this.renderer.renderStrings(map, this.scopeAt(0, []));
  }

  test(condition: string): Promise<boolean> {
    return this.renderer.test(condition, this.scopeAt(0, []));
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

  /** `$resume.<stepId>` for each wait named; masked wherever the step records them, the token alone included. */
  private resumeLinks(stepIds: string[]): object {
    const links: Record<string, string> = Object.create(null);
    for (const stepId of stepIds) {
      if (!this.sources.resumeLink) throw new TemplateError('$resume is not available here');
      const url = this.sources.resumeLink(this.run.executionId, stepId);
      this.addSecret(url);
      this.addSecret(url.slice(url.lastIndexOf('/') + 1));
      links[stepId] = url;
    }
    return links;
  }

  /** Marks a value (or one derived from secrets, such as a Basic auth header) for masking. */
  addSecret(value: string): void {
    this.secrets.add(value);
  }

  /** A copy of `value` with every secret this step touched replaced by [secret]. */
  mask<T>(value: T): T {
    return this.secrets.mask(value);
  }

  /** The scope a template at this depth renders in, built from what it names. */
  private scopeAt(depth: number, chain: string[]) {
    return async (needs: DollarNeeds): Promise<object> => {
      const env: Record<string, unknown> = Object.create(null);
      const keys = needs.env === 'all' ? Object.keys(await this.environmentValues()) : needs.env;
      for (const key of keys) {
        const value = await (depth === 0 ? this.topLevelEnvValue(key) : this.envValue(key, depth, chain));
        if (value !== undefined) env[key] = value;
      }
      const connections: Record<string, unknown> = Object.create(null);
      await Promise.all(needs.connections.map(async (name) => (connections[name] = await this.connectionConfig(name))));
      const scope = Object.assign(Object.create(null), this.data, needs.initial ? { initial: await this.initial() } : {}, {
        [ENV_ROOT]: env,
        [CONNECTIONS_ROOT]: connections,
        [RESUME_ROOT]: this.resumeLinks(needs.resume),
      });
      scope[SECRET_TRACKER] = this.secrets satisfies SecretTracker;
      return scope;
    };
  }

  /**
   * `$env.<key>` as a step's own templates read it. Every template of the
   * step reads it the same way (from depth 0, no chain), so it is resolved
   * once per step, however many fields name it.
   */
  private topLevelEnvValue(key: string): Promise<unknown> {
    let value = this.topLevel.get(key);
    if (!value) {
      value = this.envValue(key, 0, []);
      this.topLevel.set(key, value);
    }
    return value;
  }

  /**
   * `$env.<key>`: its value, itself rendered when it holds a template, at most
   * MAX_TEMPLATE_DEPTH levels deep. Not memoized below the top: how deep a
   * value sits depends on the path that reached it. A cycle is refused as
   * soon as it closes.
   */
  private async envValue(key: string, depth: number, chain: string[]): Promise<unknown> {
    const values = await this.environmentValues();
    if (!Object.hasOwn(values, key)) return undefined;
    const { value: raw, secret } = values[key];
    if (secret) this.addSecret(raw);
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
    if (secret && typeof value === 'string') this.addSecret(value);
    return value;
  }

  private environmentValues(): Promise<Record<string, EnvironmentValue>> {
    const { organizationId, environmentId } = this.run;
    if (!environmentId) {
      return Promise.reject(new TemplateError("$env is used but the run has no environment: set the workflow's default environment or call with ?env=<name>"));
    }
    this.environment ??= this.sources.environmentValues(organizationId, environmentId);
    return this.environment;
  }

  /** A copy of the connection's config, without a prototype; the hidden tag lets a connection field recognise it. */
  private async connectionConfig(name: string): Promise<object> {
    const connection = await this.loadConnection(name);
    const config = Object.assign(Object.create(null), connection.config);
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

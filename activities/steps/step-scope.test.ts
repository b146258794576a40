import { createLiquid, MAX_TEMPLATE_DEPTH } from '../../src/templates/template-engine';
import { TemplateError, TemplateRenderer } from '../../src/templates/template-renderer';
import { StepError } from './step-errors';
import { MASK, StepScope, type EnvironmentValue, type ResolvedConnection, type SecretSources } from './step-scope';
import { ConnectionTypeCatalog } from '../../src/connections/types/catalog';

const catalog = new ConnectionTypeCatalog();

const renderer = new TemplateRenderer(createLiquid());

/** In-memory secrets that count every "decryption". */
class FakeSources implements SecretSources {
  envCalls: Array<[string, string]> = [];
  connectionCalls: Array<[string, string]> = [];

  constructor(
    private readonly env: Record<string, string | EnvironmentValue> = {},
    private readonly connections: Record<string, Omit<ResolvedConnection, 'name' | 'secretValues'>> = {},
  ) {}

  async environmentValues(organizationId: string, environmentId: string): Promise<Record<string, EnvironmentValue>> {
    this.envCalls.push([organizationId, environmentId]);
    return Object.fromEntries(Object.entries(this.env).map(([k, v]) => [k, typeof v === 'string' ? { value: v, secret: true } : v]));
  }

  async connectionByName(organizationId: string, name: string): Promise<ResolvedConnection | undefined> {
    this.connectionCalls.push([organizationId, name]);
    const found = this.connections[name];
    return found ? { ...found, name, config: structuredClone(found.config), secretValues: catalog.secretValues(found.type, found.config) } : undefined;
  }
}

const RUN = { executionId: 'e', organizationId: 'o', environmentId: 'env' };
const CONTEXT = { initial: { name: 'Ada', amount: 150 }, steps: { fetch: { body: { id: 'f-1' } } } };

const CONNECTIONS = {
  crm: { id: 'c-crm', type: 'api-key', config: { apiKey: 'crm-api-key-123', headerName: 'X-Api-Key', prefix: 'Token' } },
  mail: { id: 'c-mail', type: 'basic-auth', config: { username: 'mailer', password: 'mail-password-9' } },
};

function scopeWith(env: Record<string, string | EnvironmentValue>, run: { executionId: string; organizationId: string; environmentId?: string } = RUN) {
  const sources = new FakeSources(env, CONNECTIONS);
  return { sources, scope: new StepScope(renderer, sources, run, CONTEXT) };
}

/** A chain K1 -> K2 -> ... where the first `templates` values are templates and the last is plain. */
function envChain(templates: number): Record<string, string> {
  const env: Record<string, string> = {};
  for (let i = 1; i <= templates; i++) env[`K${i}`] = `{{ $env.K${i + 1} }}`;
  env[`K${templates + 1}`] = 'bottom';
  return env;
}

/** Rejects instead of hanging forever, so a deadlock shows up as a failed assertion. */
function within<T>(work: Promise<T>, ms = 3_000): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

describe('StepScope roots', () => {
  test('initial and earlier steps are roots', async () => {
    const { scope, sources } = scopeWith({});
    expect(await scope.render('{{ initial.name }} {{ fetch.body.id }}')).toBe('Ada f-1');
    expect(await scope.render('{{ fetch.body }}')).toEqual({ id: 'f-1' });
    expect(await scope.renderDeep({ a: ['{{ initial.amount }}'] })).toEqual({ a: ['150'] });
    expect(await scope.renderStrings({ h: '{{ fetch.body }}' })).toEqual({ h: '{"id":"f-1"}' });
    expect(await scope.test('initial.amount > 100')).toBe(true);
    expect(sources.envCalls).toHaveLength(0);
    expect(sources.connectionCalls).toHaveLength(0);
  });
});

describe('$env', () => {
  test('values are decrypted only when a template uses them, once per step', async () => {
    const { scope, sources } = scopeWith({ API_KEY: 'key-abcdef', REGION: 'eu' });
    expect(await scope.render('{{ initial.name }}')).toBe('Ada');
    expect(await scope.render('no template here')).toBe('no template here');
    expect(sources.envCalls).toHaveLength(0);

    expect(await scope.render('{{ $env.API_KEY }}')).toBe('key-abcdef');
    expect(sources.envCalls).toEqual([['o', 'env']]);
    expect(await scope.render('{{ $env.REGION }}/{{ $env.API_KEY }}')).toBe('eu/key-abcdef');
    expect(await scope.test('$env.REGION == "eu"')).toBe(true);
    expect(sources.envCalls).toHaveLength(1);
    expect(await scope.render('[{{ $env.MISSING }}]')).toBe('[]');
    expect(sources.envCalls).toHaveLength(1);
  });

  test('concurrent first uses share one decryption', async () => {
    const { scope, sources } = scopeWith({ A: 'aaaa', B: 'bbbb' });
    expect(await scope.renderDeep(['{{ $env.A }}', '{{ $env.B }}', '{{ $env.A }}{{ $env.B }}'])).toEqual(['aaaa', 'bbbb', 'aaaabbbb']);
    expect(sources.envCalls).toHaveLength(1);
  });

  test('a value that is a template is resolved recursively, with every root available', async () => {
    const { scope } = scopeWith({
      GREETING: 'Hello {{ initial.name }} from {{ $env.REGION }}',
      REGION: '{{ $env.ZONE }}-1',
      ZONE: 'eu',
      BODY: '{{ fetch.body }}',
    });
    expect(await scope.render('{{ $env.GREETING }}!')).toBe('Hello Ada from eu-1!');
    expect(await scope.render('{{ $env.BODY }}')).toEqual({ id: 'f-1' });
  });

  test(`${MAX_TEMPLATE_DEPTH} levels of templates resolve`, async () => {
    expect(MAX_TEMPLATE_DEPTH).toBe(5);
    const { scope } = scopeWith(envChain(5));
    expect(await within(scope.render('{{ $env.K1 }}'))).toBe('bottom');
  });

  test('6 levels throw a TemplateError naming the chain and the limit', async () => {
    const { scope } = scopeWith(envChain(6));
    const err = (await within(scope.render('{{ $env.K1 }}')).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TemplateError);
    expect(err.message).toBe('Template resolution goes deeper than 5 levels: $env.K1 → $env.K2 → $env.K3 → $env.K4 → $env.K5 → $env.K6');
    // the values themselves never appear in the message
    expect(err.message).not.toContain('bottom');
  });

  test('the depth limit also applies to core.if conditions and connection fields', async () => {
    const { scope } = scopeWith(envChain(6));
    await expect(within(scope.test('$env.K1 == "bottom"'))).rejects.toThrow(/deeper than 5 levels/);
    const other = scopeWith(envChain(6)).scope;
    await expect(within(other.connection('{{ $env.K1 }}'))).rejects.toThrow(/deeper than 5 levels/);
  });

  // BUG (reported): env values are cached per key as the promise being resolved, so a cycle awaits its own
  // pending promise and the render never settles (the activity hangs until its timeout).
  // Drop `.failing` once step-scope.ts is fixed.
  test('a cycle throws a TemplateError naming the chain and 5', async () => {
    const { scope } = scopeWith({ A: 'a{{ $env.B }}', B: 'b{{ $env.A }}' });
    const err = (await within(scope.render('{{ $env.A }}')).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(TemplateError);
    expect(err.message).toMatch(/deeper than 5 levels: \$env\.A → \$env\.B → \$env\.A/);
  });

  test('a value referring to itself throws a TemplateError', async () => {
    const { scope } = scopeWith({ SELF: '{{ $env.SELF }}' });
    await expect(within(scope.render('{{ $env.SELF }}'))).rejects.toThrow(/deeper than 5 levels: \$env\.SELF → \$env\.SELF/);
  });

  test('no environment: $env use is a clear TemplateError, other templates still work', async () => {
    const sources = new FakeSources({ X: 'y' }, CONNECTIONS);
    const scope = new StepScope(renderer, sources, { executionId: 'e', organizationId: 'o' }, CONTEXT);
    expect(await scope.render('{{ initial.name }}')).toBe('Ada');
    for (const use of [
      () => scope.render('{{ $env.X }}'),
      () => scope.render('x {{ $env.X }} y'),
      () => scope.test('$env.X'),
      () => scope.connection('{{ $env.X }}'),
    ]) {
      const err = (await use().catch((e: unknown) => e)) as Error;
      expect(err).toBeInstanceOf(TemplateError);
      expect(err.message).toMatch(/\$env is used but the run has no environment/);
      expect(err.message).toContain('?env=<name>');
    }
    expect(sources.envCalls).toHaveLength(0);
  });
});

describe('connection()', () => {
  test('a plain name', async () => {
    const { scope, sources } = scopeWith({});
    const found = await scope.connection('crm');
    expect(found).toEqual({ id: 'c-crm', name: 'crm', type: 'api-key', config: CONNECTIONS.crm.config, secretValues: ['crm-api-key-123'] });
    expect(await scope.connection('  crm ')).toBe(found);
    expect(sources.connectionCalls).toEqual([['o', 'crm']]);
    expect(sources.envCalls).toHaveLength(0);
  });

  test('{{ $connections.crm }}', async () => {
    const { scope } = scopeWith({});
    for (const field of ['{{ $connections.crm }}', '{{$connections.crm}}']) {
      const found = await scope.connection(field);
      expect(found.id).toBe('c-crm');
      expect(found.name).toBe('crm');
      expect(found.type).toBe('api-key');
      expect(found.config).toEqual(CONNECTIONS.crm.config);
    }
  });

  test('{{ $env.CRM }} where CRM = {{$connections.crm}}, or a plain name', async () => {
    const { scope, sources } = scopeWith({ CRM: '{{$connections.crm}}', MAIL: 'mail', NAMED: '{{ $env.MAIL }}' });
    expect((await scope.connection('{{ $env.CRM }}')).id).toBe('c-crm');
    expect((await scope.connection('{{ $env.MAIL }}')).id).toBe('c-mail');
    expect((await scope.connection('{{ $env.NAMED }}')).id).toBe('c-mail');
    expect(sources.envCalls).toHaveLength(1);
  });

  test('the config of $connections.<name> can be read by templates', async () => {
    const { scope } = scopeWith({});
    expect(await scope.render('{{ $connections.crm.headerName }}')).toBe('X-Api-Key');
    expect(await scope.render('{{ $connections.crm }}')).toEqual(CONNECTIONS.crm.config);
  });

  test('a missing connection is a StepError of type ConnectionNotFound', async () => {
    const { scope } = scopeWith({ GONE: '{{ $connections.gone }}', GONE_NAME: 'gone' });
    for (const field of ['gone', '{{ $connections.gone }}', '{{ $env.GONE }}', '{{ $env.GONE_NAME }}']) {
      const err = (await scope.connection(field).catch((e: unknown) => e)) as StepError;
      expect(err).toBeInstanceOf(StepError);
      expect(err.type).toBe('ConnectionNotFound');
      expect(err.retryable).toBe(false);
      expect(err.message).toBe('Connection "gone" does not exist (it may have been deleted)');
    }
    const empty = (await scope.connection('{{ initial.nothing }}').catch((e: unknown) => e)) as StepError;
    expect(empty).toBeInstanceOf(StepError);
    expect(empty.type).toBe('ConnectionNotFound');
    expect(empty.message).toMatch(/resolved to nothing/);
  });

  test('a missing connection used in a template is a StepError too', async () => {
    const { scope } = scopeWith({});
    const err = (await scope.render('key {{ $connections.gone.apiKey }}').catch((e: unknown) => e)) as StepError;
    expect(err).toBeInstanceOf(StepError);
    expect(err.type).toBe('ConnectionNotFound');
  });
});

describe('mask()', () => {
  test('with no secrets touched, values come back as they are', async () => {
    const { scope } = scopeWith({ API_KEY: 'key-abcdef' });
    const value = { text: 'key-abcdef' };
    expect(scope.mask(value)).toBe(value);
  });

  test('replaces env values used by the step, in nested objects and keys', async () => {
    const { scope } = scopeWith({ API_KEY: 'key-abcdef', TOKEN: 's3cr3t-token', REGION: 'eu', UNUSED: 'never-used-secret', PIN: '123' });
    await scope.render('{{ $env.API_KEY }} {{ $env.TOKEN }} {{ $env.REGION }} {{ $env.PIN }}');
    const value = {
      'header key-abcdef': 'Bearer key-abcdef',
      nested: { list: ['s3cr3t-token', 'x s3cr3t-tokens3cr3t-token y', 42, null, true], deep: { 'key-abcdef': { v: 'never-used-secret' } } },
      region: 'eu-west eu',
      pin: '123',
      plain: 'nothing to see',
    };
    expect(scope.mask(value)).toEqual({
      'header [secret]': 'Bearer [secret]',
      nested: { list: ['[secret]', 'x [secret][secret] y', 42, null, true], deep: { '[secret]': { v: 'never-used-secret' } } },
      region: 'eu-west eu',
      pin: '123',
      plain: 'nothing to see',
    });
    // the original is not modified
    expect(value.nested.list[0]).toBe('s3cr3t-token');
    expect(scope.mask('key-abcdef')).toBe(MASK);
  });

  test('masks both the raw template and the value it resolved to', async () => {
    const { scope } = scopeWith({ URL: 'https://{{ $env.HOST }}/v1', HOST: 'internal.example' });
    expect(await scope.render('{{ $env.URL }}')).toBe('https://internal.example/v1');
    expect(scope.mask('a https://internal.example/v1 b')).toBe('a [secret] b');
    expect(scope.mask('host internal.example')).toBe('host [secret]');
    expect(scope.mask('raw https://{{ $env.HOST }}/v1')).toBe('raw [secret]');
  });

  test('replaces the secret (write-only) values of connections used by the step, not their other fields', async () => {
    const { scope } = scopeWith({});
    await scope.connection('mail');
    expect(scope.mask({ auth: 'mailer:mail-password-9', list: ['mail-password-9'], crm: 'crm-api-key-123' })).toEqual({
      auth: 'mailer:[secret]',
      list: ['[secret]'],
      crm: 'crm-api-key-123', // not used by this step
    });
    await scope.render('{{ $connections.crm.apiKey }}');
    expect(scope.mask('crm-api-key-123')).toBe(MASK);
    expect(scope.mask('X-Api-Key: Token')).toBe('X-Api-Key: Token');
  });

  test('regex characters in secrets are matched literally, the longest first', async () => {
    const { scope } = scopeWith({ A: 'a.b*c+(d)', B: 'a.b*c+(d)[more]' });
    await scope.render('{{ $env.A }}{{ $env.B }}');
    expect(scope.mask('x a.b*c+(d)[more] y a.b*c+(d) z aXbbbc+d')).toBe('x [secret] y [secret] z aXbbbc+d');
  });

  test('addSecret adds values of 4 characters or more', async () => {
    const { scope } = scopeWith({});
    scope.addSecret('abc');
    expect(scope.mask('abc abcd')).toBe('abc abcd');
    scope.addSecret('abcd');
    expect(scope.mask('abc abcd abcde')).toBe('abc [secret] [secret]e');
    scope.addSecret('Basic dXNlcjpwYXNz');
    expect(scope.mask({ authorization: 'Basic dXNlcjpwYXNz' })).toEqual({ authorization: MASK });
  });
});

import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { ajvIssues } from '../../errors/ajv-issues';
import type { FieldIssue } from '../../errors/errors';
import { GENERIC_TYPES } from './generic-types';
import type { JsonSchema } from './json-schema';
import { VENDOR_TYPES } from './vendor-types';

const SCHEMAS: Record<string, JsonSchema> = { ...GENERIC_TYPES, ...VENDOR_TYPES };

export type ConfigCheck = { ok: true; config: Record<string, unknown>; variant: string | null } | { ok: false; issues: FieldIssue[] };

/** Connection types, their published JSON Schemas, and validation of configs against them. */
export class ConnectionTypeCatalog {
  private readonly validators = new Map<string, ValidateFunction>();
  private ajv?: Ajv;

  /**
   * A type's validator, compiled at its first use: compiling all of them is a quarter of a second that every start
   * (and every test file) would pay for types it never checks. catalog.test.ts compiles every one.
   */
  private validator(type: string): ValidateFunction {
    let validate = this.validators.get(type);
    if (!validate) {
      // The service's own schemas, not an organization's, so V8's engine (organization-ajv.ts is for theirs): the
      // webhook-signing payload layout needs a lookahead, which RE2 lacks; every pattern here is anchored and linear.
      if (!this.ajv) {
        this.ajv = new Ajv({ allErrors: true, useDefaults: true, discriminator: true, strict: true, strictRequired: false });
        addFormats(this.ajv);
      }
      validate = this.ajv.compile(SCHEMAS[type]);
      this.validators.set(type, validate);
    }
    return validate;
  }

  list(): string[] {
    return Object.keys(SCHEMAS);
  }

  has(type: string): boolean {
    return Object.hasOwn(SCHEMAS, type);
  }

  schema(type: string): JsonSchema | undefined {
    return this.has(type) ? structuredClone(SCHEMAS[type]) : undefined;
  }

  /**
   * The values of a config that are secrets (its write-only fields), which a
   * running step must mask wherever they would be recorded. An unknown type
   * counts every string as secret.
   */
  secretValues(type: string, config: Record<string, unknown>): string[] {
    return Object.entries(config).flatMap(([key, value]) => (typeof value === 'string' && this.isWriteOnly(type, key) ? [value] : []));
  }

  /**
   * Whether a config field is write-only (a secret) in any branch of its type's
   * schema, or is a free-form value of a type whose extra fields are all
   * write-only (`custom`). Every field of an unknown type is.
   */
  isWriteOnly(type: string, key: string): boolean {
    const schema = this.has(type) ? SCHEMAS[type] : undefined;
    if (!schema) return true;
    const branches = [schema, ...(schema.oneOf ?? [])];
    // Own properties only: `constructor` or `toString` in a custom config is a field, not the prototype's method.
    const declared = (b: { properties?: object }) =>
      b.properties && Object.hasOwn(b.properties, key) ? (b.properties as Record<string, { writeOnly?: boolean }>)[key] : undefined;
    if (branches.some((b) => declared(b)?.writeOnly)) return true;
    const extra = schema.additionalProperties;
    return typeof extra === 'object' && extra.writeOnly === true && !declared(schema);
  }

  /**
   * A config with its secrets taken out: the values of the fields that are not
   * write-only, and the names of the write-only fields that hold a value. What
   * an edit form may show; never a secret.
   */
  redact(type: string, config: Record<string, unknown>): { values: Record<string, unknown>; secretsSet: string[] } {
    const entries = Object.entries(config);
    // Built with fromEntries (own properties, whatever the key): assigning a "__proto__" key would set a prototype instead.
    const values = Object.fromEntries(entries.filter(([key]) => !this.isWriteOnly(type, key)));
    const secretsSet = entries
      .filter(([key, value]) => this.isWriteOnly(type, key) && value !== undefined && value !== null && value !== '')
      .map(([key]) => key);
    return { values, secretsSet };
  }

  /**
   * The config an edit means when its secrets are kept (PATCH with
   * keepSecrets): `next` as given, where a write-only field left out takes its
   * value from `current` and one given as null is removed. Only within one
   * variant: a config that switches variant (form-auth password to token)
   * starts afresh and must give its own secrets. Non-secret fields are as
   * `next` says, left out meaning dropped, as with a plain replace.
   */
  keepSecrets(type: string, current: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
    const given = Object.entries(next).filter(([key, value]) => !(value === null && this.isWriteOnly(type, key)));
    const discriminant = SCHEMAS[type]?.discriminator?.propertyName;
    const sameVariant = !discriminant || current[discriminant] === next[discriminant];
    const kept = sameVariant ? Object.entries(current).filter(([key]) => !Object.hasOwn(next, key) && this.isWriteOnly(type, key)) : [];
    return Object.fromEntries([...given, ...kept]);
  }

  /** Validates a config (filling defaults in a copy); multi-variant types report their variant. */
  check(type: string, config: unknown): ConfigCheck {
    const validate = this.validator(type);
    const copy = structuredClone(config) as Record<string, unknown>;
    if (!validate(copy)) return { ok: false, issues: ajvIssues(validate.errors ?? [], 'config') };
    const variant = SCHEMAS[type].discriminator ? String(copy[SCHEMAS[type].discriminator!.propertyName]) : null;
    return { ok: true, config: copy, variant };
  }
}

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
    const schema = this.has(type) ? SCHEMAS[type] : undefined;
    const secretField = (key: string) => {
      if (!schema) return true;
      const branches = [schema, ...(schema.oneOf ?? [])];
      if (branches.some((b) => b.properties?.[key]?.writeOnly)) return true;
      const extra = schema.additionalProperties;
      return typeof extra === 'object' && extra.writeOnly === true && !schema.properties?.[key];
    };
    return Object.entries(config).flatMap(([key, value]) => (typeof value === 'string' && secretField(key) ? [value] : []));
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

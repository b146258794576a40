import { NotFoundError, ValidationError } from '../errors/errors';
import { newId } from '../ids';
import { assertNotBuiltIn } from './built-in-sources';
import type { DataSourcesRepository } from './data-sources.repository';
import type { CalculatedField, Expression, WindowDimension } from './data-sources.schemas';
import { type DataSourcesService, throwIfAny } from './data-sources.service';
import { calculatedFieldIssues, expressionIssues, windowDimensionIssues, windowUnsupportedReason } from './schema-rules';

/** Rows a calculated-field preview shows. */
const PREVIEW_ROWS = 20;

/**
 * A source's own members: calculated fields (expressions over its fields)
 * and window dimensions (each with indexes of its own). Every change goes
 * through the source's locked row (DataSourcesService.change), as any other
 * change of the source does.
 */
export class SourceMembersService {
  constructor(
    private readonly sources: Pick<DataSourcesService, 'get' | 'assertReadable' | 'change'>,
    private readonly repository: Pick<DataSourcesRepository, 'preview'>,
  ) {}

  async addCalculatedField(organizationId: string, id: string, body: Omit<CalculatedField, 'id'>): Promise<CalculatedField> {
    const field = { id: newId(), ...body };
    await this.sources.change(organizationId, id, (source) => {
      throwIfAny(calculatedFieldIssues(source.recordSchema, source.windowDimensions, body), 'Invalid calculated field');
      source.recordSchema = { ...source.recordSchema, calculatedFields: [...source.recordSchema.calculatedFields, field] };
      return 'none';
    });
    return field;
  }

  /** The expression over the first rows of the source, in key order; nothing is saved. */
  async previewExpression(organizationId: string, id: string, expression: Expression): Promise<Array<number | null>> {
    const source = await this.sources.get(organizationId, id);
    assertNotBuiltIn(source, 'have calculated fields');
    await this.sources.assertReadable([source]);
    throwIfAny(expressionIssues(source.recordSchema, expression), 'Invalid expression');
    return this.repository.preview(source, expression, PREVIEW_ROWS);
  }

  /** Changes attributes; a rename leaves widgets naming the old name as they are (they then match nothing). */
  async updateCalculatedField(organizationId: string, id: string, fieldId: string, patch: Partial<Omit<CalculatedField, 'id'>>): Promise<CalculatedField> {
    let updated: CalculatedField | undefined;
    await this.sources.change(organizationId, id, (source) => {
      const current = source.recordSchema.calculatedFields.find((c) => c.id === fieldId);
      if (!current) throw new NotFoundError('Calculated field');
      const next = { ...current, ...patch };
      throwIfAny(calculatedFieldIssues(source.recordSchema, source.windowDimensions, next), 'Invalid calculated field');
      source.recordSchema = { ...source.recordSchema, calculatedFields: source.recordSchema.calculatedFields.map((c) => (c.id === fieldId ? next : c)) };
      updated = next;
      return 'none';
    });
    return updated!;
  }

  async deleteCalculatedField(organizationId: string, id: string, fieldId: string): Promise<void> {
    await this.sources.change(organizationId, id, (source) => {
      if (!source.recordSchema.calculatedFields.some((c) => c.id === fieldId)) throw new NotFoundError('Calculated field');
      source.recordSchema = { ...source.recordSchema, calculatedFields: source.recordSchema.calculatedFields.filter((c) => c.id !== fieldId) };
      return 'none';
    });
  }

  /** Window dimensions have indexes of their own (partition and order), so each change re-indexes. */
  async addWindowDimension(organizationId: string, id: string, body: Omit<WindowDimension, 'id'>): Promise<WindowDimension> {
    const dimension = { id: newId(), ...body };
    await this.sources.change(organizationId, id, (source) => {
      const unsupported = windowUnsupportedReason(source);
      if (unsupported) throw new ValidationError(`This source cannot have window dimensions: ${unsupported}`, undefined, 'window_unsupported');
      throwIfAny(windowDimensionIssues(source.recordSchema, source.windowDimensions, body), 'Invalid window dimension');
      source.windowDimensions = [...source.windowDimensions, dimension];
      return 'reindex';
    });
    return dimension;
  }

  async updateWindowDimension(organizationId: string, id: string, fieldId: string, patch: Partial<Omit<WindowDimension, 'id'>>): Promise<WindowDimension> {
    let updated: WindowDimension | undefined;
    await this.sources.change(organizationId, id, (source) => {
      const current = source.windowDimensions.find((w) => w.id === fieldId);
      if (!current) throw new NotFoundError('Window dimension');
      const next = { ...current, ...patch };
      throwIfAny(windowDimensionIssues(source.recordSchema, source.windowDimensions, next), 'Invalid window dimension');
      source.windowDimensions = source.windowDimensions.map((w) => (w.id === fieldId ? next : w));
      updated = next;
      return 'reindex';
    });
    return updated!;
  }

  async deleteWindowDimension(organizationId: string, id: string, fieldId: string): Promise<void> {
    await this.sources.change(organizationId, id, (source) => {
      if (!source.windowDimensions.some((w) => w.id === fieldId)) throw new NotFoundError('Window dimension');
      source.windowDimensions = source.windowDimensions.filter((w) => w.id !== fieldId);
      return 'reindex';
    });
  }
}

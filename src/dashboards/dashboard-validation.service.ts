import type { AnalyticsService } from '../analytics/analytics.service';
import type { DataSourcesService } from '../data-sources/data-sources.service';
import type { DashboardsRepository } from './dashboards.repository';
import { foreignSourceIdCandidates, validateWidgets } from './validation/validate-widgets';
import type { ValidationResult } from './validation/rules';

/**
 * POST /dashboards/validate: the rules of validation/ over what the
 * organization has. Reads the organization's sources and their metadata (the
 * same compiled model queries use) and, for the ids no source of its own has,
 * whether they exist in another organization (one bounded query). Saves nothing.
 */
export class DashboardValidationService {
  constructor(
    private readonly dataSources: DataSourcesService,
    private readonly analytics: AnalyticsService,
    private readonly repository: DashboardsRepository,
  ) {}

  async validate(organizationId: string, body: unknown): Promise<ValidationResult> {
    const [sources, meta] = await Promise.all([this.dataSources.list(organizationId), this.analytics.meta(organizationId)]);
    const elsewhere = await this.repository.sourceOrganizations(foreignSourceIdCandidates(body, sources));
    return validateWidgets(body, { sources, meta, foreignSourceIds: new Set(elsewhere.keys()) });
  }
}

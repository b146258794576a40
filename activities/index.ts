import { createAgentActivities } from './agent';
import { createDataFeedActivities } from './data-feeds';
import { createDataStoreActivities } from './data-stores';
import { createDiagnosticsActivities } from './diagnostics';
import { createErrorRunActivities } from './error-runs';
import { createReplayActivities } from './replays';
import { createRetentionActivities } from './retention';
import { createRunActivities } from './runs';
import { createScheduleActivities } from './schedules';
import { createStepActivities } from './steps';
import type { ActivityDeps } from './deps';

/** Builds every activity with its dependencies (no globals), as the worker registers them. */
export function createActivities(deps: ActivityDeps) {
  const records = createDataStoreActivities(deps);
  return {
    ...createDiagnosticsActivities(deps),
    ...records,
    ...createStepActivities(deps, records),
    ...createRunActivities(deps),
    ...createErrorRunActivities(deps),
    ...createDataFeedActivities(deps),
    ...createAgentActivities(deps, records),
    ...createScheduleActivities(deps),
    ...createRetentionActivities(deps),
    ...createReplayActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
export type { ActivityDeps };

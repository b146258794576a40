import { type createDataStoreActivities } from '../data-stores';
import type { StepRequest } from '../../workflows/run.types';
import { asText } from '../../src/templates/template-renderer';
import { StepError } from './step-errors';
import { runStep, type StepRunnerDeps } from './step-runner';

/**
 * `data-store.get` and `data-store.set`: templates rendered here, then the
 * same activities (and so the same service and validation) as every other
 * data store write. A table a step writes comes into existence.
 */
export function createDataStoreSteps(deps: StepRunnerDeps, records: ReturnType<typeof createDataStoreActivities>) {
  return {
    /** Output `{ found, value, record }`; a missing table or key is `found: false`, not an error. */
    dataStoreGetStep(request: StepRequest) {
      return runStep(deps, request, async (scope, trace) => {
        const tableName = asText(await scope.render(request.step.input.tableName));
        const key = asText(await scope.render(request.step.input.key));
        trace.input = { tableName, key };
        const record = await records.readDataStoreRecord({ organizationId: request.run.organizationId, tableName, key });
        return { found: record !== null, value: record?.value ?? null, record };
      });
    },

    /** Output `{ key, created }`. */
    dataStoreSetStep(request: StepRequest) {
      return runStep(deps, request, async (scope, trace) => {
        const { ttlSeconds } = request.step.input;
        const tableName = asText(await scope.render(request.step.input.tableName));
        const key = asText(await scope.render(request.step.input.key));
        const value = await scope.renderDeep(request.step.input.value);
        trace.input = { tableName, key, value, ...(ttlSeconds ? { ttlSeconds } : {}) };
        // A record is data every member with workflows:view reads: a secret written there would be out in the open.
        if (scope.secrets.touches({ tableName, key, value })) {
          throw new StepError(
            'The record would hold a secret value (from $env or a connection) in plain text, readable by every member who may read data stores; ' +
              'store a reference instead and read the secret from $env where it is used',
            'SecretInDataStore',
          );
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          throw new StepError(
            `value must be an object (or a template yielding one); it rendered to ${Array.isArray(value) ? 'an array' : typeof value}`,
            'InvalidStepInput',
          );
        }
        const outcome = await records.writeDataStoreRecords({
          organizationId: request.run.organizationId,
          tableName,
          records: [{ key, value: value as Record<string, unknown>, ...(ttlSeconds ? { ttlSeconds } : {}) }],
        });
        return { key, created: outcome.created === 1 };
      });
    },
  };
}

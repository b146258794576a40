import type { EnvironmentsService } from '../environments/environments.service';
import { NotFoundError, ValidationError } from '../errors/errors';
import { newId, newSuid } from '../ids';
import { type Effects, runNow } from '../lib/after-commit';
import type { WorkflowsService } from '../workflows/workflows.service';
import { type CheckedSchedule, checkSchedule, type ScheduleSpec } from './schedule-spec';
import { ScheduleTrigger } from './schedule-trigger.entity';
import { MAX_SCHEDULE_TRIGGERS, type CreateScheduleTriggerInput, type UpdateScheduleTriggerInput } from './schedule-triggers.schemas';
import type { ScheduleTriggersRepository } from './schedule-triggers.repository';
import type { TriggerSchedules } from './trigger-schedules';

const LAST_RUNS = 5;

/**
 * Schedule triggers: each row has its Temporal Schedule, and the two change
 * together. A spec is checked here first, then by Temporal, whose refusal is
 * a 400 as well (TriggerSchedules). A create writes the row, then the
 * schedule (the row goes again if Temporal refuses); an update changes the
 * schedule inside the row's transaction, so a refused update leaves both as
 * they were; a delete takes the schedule first, so no schedule outlives its
 * trigger (a beat that finds its trigger gone deletes its schedule anyway).
 */
export class ScheduleTriggersService {
  constructor(
    private readonly repo: ScheduleTriggersRepository,
    private readonly workflows: WorkflowsService,
    private readonly environments: EnvironmentsService,
    private readonly schedules: TriggerSchedules,
    private readonly minIntervalSeconds: number,
    /** The quick check before Temporal's; a test replaces it to reach Temporal's own refusal. */
    private readonly check: (spec: ScheduleSpec, minIntervalSeconds: number) => CheckedSchedule = checkSchedule,
  ) {}

  list(organizationId: string, filter: { workflowId?: string }, page: { limit: number; offset: number }) {
    return this.repo.list(organizationId, filter, page);
  }

  async get(organizationId: string, id: string): Promise<ScheduleTrigger> {
    const trigger = await this.repo.findById(organizationId, id);
    if (!trigger) throw new NotFoundError('Schedule trigger');
    return trigger;
  }

  /** The trigger with what Temporal says of its schedule (next run times, pause note) and its last runs. */
  async read(organizationId: string, id: string) {
    const trigger = await this.get(organizationId, id);
    const [state, lastRuns] = await Promise.all([this.schedules.describe(id), this.repo.lastRuns(organizationId, id, LAST_RUNS)]);
    return { trigger, state, lastRuns };
  }

  async create(organizationId: string, workflowId: string, input: CreateScheduleTriggerInput): Promise<ScheduleTrigger> {
    const workflow = await this.workflows.get(organizationId, workflowId);
    const spec = this.checkSpec(input.schedule);
    if ((await this.repo.count(organizationId)) >= MAX_SCHEDULE_TRIGGERS) {
      throw new ValidationError(
        `An organization has at most ${MAX_SCHEDULE_TRIGGERS} schedule triggers; delete one first`,
        [{ path: 'type', message: 'limit reached' }],
        'schedule_trigger_limit',
      );
    }
    const environmentId = input.environment ? await this.environments.idByName(organizationId, input.environment, 'environment') : null;
    const trigger = Object.assign(new ScheduleTrigger(), {
      id: newId(),
      suid: newSuid(),
      organizationId,
      workflowId,
      name: input.name,
      ...specColumns(spec),
      initial: input.initial,
      environmentId,
      overlapPolicy: input.overlapPolicy,
      catchupWindowSeconds: input.catchupWindowSeconds,
      paused: input.paused,
    });
    // The row is committed before the schedule exists, not written in one transaction with it: a first beat
    // that came before the commit would find no trigger and delete the schedule.
    await this.repo.insert(trigger);
    try {
      await this.schedules.create(trigger, workflow.workflow.name);
    } catch (err) {
      await this.repo.delete(organizationId, trigger.id);
      throw err;
    }
    return this.get(organizationId, trigger.id);
  }

  async update(organizationId: string, id: string, input: UpdateScheduleTriggerInput): Promise<ScheduleTrigger> {
    const spec = input.schedule && this.checkSpec(input.schedule);
    const environmentId =
      input.environment === undefined
        ? undefined
        : input.environment === null
          ? null
          : await this.environments.idByName(organizationId, input.environment, 'environment');
    await this.repo.transaction(async (manager) => {
      const current = await this.repo.lock(organizationId, id, manager);
      if (!current) throw new NotFoundError('Schedule trigger');
      const changes: Partial<ScheduleTrigger> = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(spec ? specColumns(spec) : {}),
        ...(input.initial !== undefined ? { initial: input.initial } : {}),
        ...(environmentId !== undefined ? { environmentId } : {}),
        ...(input.overlapPolicy !== undefined ? { overlapPolicy: input.overlapPolicy } : {}),
        ...(input.catchupWindowSeconds !== undefined ? { catchupWindowSeconds: input.catchupWindowSeconds } : {}),
        ...(input.paused !== undefined ? { paused: input.paused } : {}),
      };
      await this.repo.update(organizationId, id, changes, manager);
      const workflow = await this.workflows.get(organizationId, current.workflowId);
      await this.schedules.update(
        { ...current, ...changes } as ScheduleTrigger,
        workflow.workflow.name,
        changes.paused !== undefined && changes.paused !== current.paused,
      );
    });
    return this.get(organizationId, id);
  }

  async delete(organizationId: string, id: string): Promise<ScheduleTrigger> {
    const trigger = await this.get(organizationId, id);
    await this.schedules.delete(id);
    if (!(await this.repo.delete(organizationId, id))) throw new NotFoundError('Schedule trigger');
    return trigger;
  }

  /**
   * Before a workflow is deleted (its trigger rows go with it by cascade): its
   * triggers' schedules. The ids are read now, while the rows are there;
   * `effects` runs the Temporal deletions: at once by default, after COMMIT
   * when the delete is part of a longer transaction (a package uninstall).
   */
  async deleteSchedulesOfWorkflow(organizationId: string, workflowId: string, effects: Effects = runNow): Promise<void> {
    const ids = await this.repo.idsOfWorkflow(organizationId, workflowId);
    if (ids.length === 0) return;
    await effects(async () => {
      for (const id of ids) await this.schedules.delete(id);
    });
  }

  /** The spec in its canonical form (the zone's IANA name), or a 400 `invalid_schedule` naming each field at fault. */
  private checkSpec(spec: ScheduleSpec): ScheduleSpec {
    const checked = this.check(spec, this.minIntervalSeconds);
    if (!checked.spec) throw new ValidationError(checked.issues.map((i) => `${i.path} ${i.message}`).join('; '), checked.issues, 'invalid_schedule');
    return checked.spec;
  }
}

function specColumns(spec: ScheduleSpec): Pick<ScheduleTrigger, 'cron' | 'timezone' | 'intervalSeconds'> {
  return 'cron' in spec
    ? { cron: spec.cron, timezone: spec.timezone, intervalSeconds: null }
    : { cron: null, timezone: 'UTC', intervalSeconds: spec.intervalSeconds };
}

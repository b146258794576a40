import { type FormEvent, useId, useState } from 'react';
import { ApiError, type FieldProblem } from '../../api/client';
import { ErrorBox } from '../../ui/error-box';
import { ProblemNote, problemAt, problemProps } from '../../ui/field-problem';
import { OVERLAP_POLICIES, type Environment, type NewScheduleTrigger, type OverlapPolicy, type ScheduleTrigger } from './workflow-model';

const UNITS = [
  { id: 'minutes', seconds: 60 },
  { id: 'hours', seconds: 3600 },
  { id: 'days', seconds: 86_400 },
  { id: 'seconds', seconds: 1 },
] as const;
type Unit = (typeof UNITS)[number]['id'];

const OVERLAP_LABELS: Record<OverlapPolicy, string> = {
  skip: 'Skip the new run',
  buffer_one: 'Run it after (one waits at most)',
  allow_all: 'Run both at once',
};

/** The browser's zone (the form's default) and every IANA name it knows, as suggestions: the API accepts any IANA name, in any case. */
const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const knownZones = () => (typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []);

interface Draft {
  name: string;
  kind: 'interval' | 'cron';
  every: string;
  unit: Unit;
  cron: string;
  timezone: string;
  /** An environment's name; '' for the workflow's default. */
  environment: string;
  overlapPolicy: OverlapPolicy;
  paused: boolean;
}

/** A trigger's fields as the form edits them: an interval in the largest unit that divides it, its environment by name. */
function draftOf(trigger: ScheduleTrigger | undefined, environments: Environment[]): Draft {
  const draft: Draft = {
    name: trigger?.name ?? '',
    kind: 'interval',
    every: '1',
    unit: 'hours',
    cron: '0 9 * * MON-FRI',
    timezone: browserZone(),
    environment: environments.find((e) => e.id === trigger?.environmentId)?.name ?? '',
    overlapPolicy: trigger?.overlapPolicy ?? 'skip',
    paused: trigger?.paused ?? false,
  };
  if (!trigger) return draft;
  if ('cron' in trigger.schedule) return { ...draft, kind: 'cron', cron: trigger.schedule.cron, timezone: trigger.schedule.timezone };
  const seconds = trigger.schedule.intervalSeconds;
  const unit = UNITS.find((u) => seconds % u.seconds === 0)!;
  return { ...draft, kind: 'interval', every: String(seconds / unit.seconds), unit: unit.id };
}

/** The fields both POST /workflows/{id}/triggers and PATCH /schedule-triggers/{id} take; `paused` on creation only (an edit leaves pausing to its button). */
export type ScheduleFields = Pick<NewScheduleTrigger, 'name' | 'schedule' | 'environment' | 'overlapPolicy'> & Partial<Pick<NewScheduleTrigger, 'paused'>>;

function fieldsOf(draft: Draft, creating: boolean): ScheduleFields {
  const unit = UNITS.find((u) => u.id === draft.unit)!;
  return {
    name: draft.name.trim(),
    schedule:
      draft.kind === 'cron'
        ? { cron: draft.cron.trim(), timezone: draft.timezone.trim() }
        : // A number the API refuses (empty, a fraction) is sent as is, so its message shows at the field.
          { intervalSeconds: Number(draft.every) * unit.seconds },
    environment: draft.environment || null,
    overlapPolicy: draft.overlapPolicy,
    ...(creating ? { paused: draft.paused } : {}),
  };
}

/** A problem the API names for the schedule as a whole (no alternative matched), not one of its fields. */
const scheduleProblem = (error: unknown): FieldProblem | undefined =>
  error instanceof ApiError ? error.details.find((d) => d.path === 'schedule') : undefined;

interface Props {
  /** The trigger edited; none for a new one. */
  trigger?: ScheduleTrigger;
  environments: Environment[];
  label: string;
  submitLabel: string;
  /** Sends the fields; what it throws is shown at the fields the API names. */
  save(fields: ScheduleFields): Promise<void>;
  onCancel?(): void;
}

/** A schedule trigger's name, when it fires (an interval, or a cron expression in an IANA zone), its environment and overlap policy. */
export function ScheduleTriggerForm({ trigger, environments, label, submitLabel, save, onCancel }: Props) {
  const id = useId();
  const [draft, setDraft] = useState(() => draftOf(trigger, environments));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  const problems = {
    name: problemAt(error, 'name'),
    interval: problemAt(error, 'schedule.intervalSeconds') ?? (draft.kind === 'interval' ? scheduleProblem(error) : undefined),
    cron: problemAt(error, 'schedule.cron') ?? (draft.kind === 'cron' ? scheduleProblem(error) : undefined),
    timezone: problemAt(error, 'schedule.timezone'),
    environment: problemAt(error, 'environment'),
    overlapPolicy: problemAt(error, 'overlapPolicy'),
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await save(fieldsOf(draft, !trigger));
      if (!trigger) setDraft(draftOf(undefined, environments));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="trigger-form" aria-label={label} onSubmit={(e) => void submit(e)}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Schedule name</label>
        <input
          id={`${id}-name`}
          value={draft.name}
          onChange={(e) => set({ name: e.target.value })}
          required
          placeholder="nightly-sync"
          {...problemProps(`${id}-name`, problems.name)}
        />
        <ProblemNote id={`${id}-name`} problem={problems.name} />
      </div>
      <fieldset className="schedule-when">
        <legend>When it runs</legend>
        <label className="checkbox">
          <input type="radio" name={`${id}-kind`} checked={draft.kind === 'interval'} onChange={() => set({ kind: 'interval' })} /> At a fixed interval
        </label>
        <label className="checkbox">
          <input type="radio" name={`${id}-kind`} checked={draft.kind === 'cron'} onChange={() => set({ kind: 'cron' })} /> On a cron expression
        </label>
        {draft.kind === 'interval' ? (
          <div className="inline-fields">
            <div className="field">
              <label htmlFor={`${id}-every`}>Every</label>
              <input
                id={`${id}-every`}
                type="number"
                min={1}
                step="any"
                value={draft.every}
                onChange={(e) => set({ every: e.target.value })}
                required
                {...problemProps(`${id}-every`, problems.interval)}
              />
              <ProblemNote id={`${id}-every`} problem={problems.interval} />
            </div>
            <div className="field">
              <label htmlFor={`${id}-unit`}>Unit</label>
              <select id={`${id}-unit`} value={draft.unit} onChange={(e) => set({ unit: e.target.value as Unit })}>
                {UNITS.map((u) => (
                  <option key={u.id}>{u.id}</option>
                ))}
              </select>
            </div>
          </div>
        ) : (
          <div className="inline-fields">
            <div className="field">
              <label htmlFor={`${id}-cron`}>Cron expression</label>
              <input
                id={`${id}-cron`}
                className="mono"
                value={draft.cron}
                onChange={(e) => set({ cron: e.target.value })}
                required
                {...problemProps(`${id}-cron`, problems.cron, `${id}-cron-help`)}
              />
              <span id={`${id}-cron-help`} className="help">
                minute hour day-of-month month day-of-week, e.g. 0 9 * * MON-FRI
              </span>
              <ProblemNote id={`${id}-cron`} problem={problems.cron} />
            </div>
            <div className="field">
              <label htmlFor={`${id}-zone`}>Time zone</label>
              <input
                id={`${id}-zone`}
                list={`${id}-zones`}
                value={draft.timezone}
                onChange={(e) => set({ timezone: e.target.value })}
                required
                {...problemProps(`${id}-zone`, problems.timezone, `${id}-zone-help`)}
              />
              <datalist id={`${id}-zones`}>
                {knownZones().map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
              <span id={`${id}-zone-help`} className="help">
                An IANA name, such as Europe/Paris
              </span>
              <ProblemNote id={`${id}-zone`} problem={problems.timezone} />
            </div>
          </div>
        )}
      </fieldset>
      <div className="inline-fields">
        <div className="field">
          <label htmlFor={`${id}-env`}>Environment</label>
          <select
            id={`${id}-env`}
            value={draft.environment}
            onChange={(e) => set({ environment: e.target.value })}
            {...problemProps(`${id}-env`, problems.environment)}
          >
            <option value="">The workflow’s default</option>
            {environments.map((e) => (
              <option key={e.id} value={e.name}>
                {e.name}
              </option>
            ))}
          </select>
          <ProblemNote id={`${id}-env`} problem={problems.environment} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-overlap`}>When the previous run is still going</label>
          <select
            id={`${id}-overlap`}
            value={draft.overlapPolicy}
            onChange={(e) => set({ overlapPolicy: e.target.value as OverlapPolicy })}
            {...problemProps(`${id}-overlap`, problems.overlapPolicy)}
          >
            {OVERLAP_POLICIES.map((p) => (
              <option key={p} value={p}>
                {OVERLAP_LABELS[p]}
              </option>
            ))}
          </select>
          <ProblemNote id={`${id}-overlap`} problem={problems.overlapPolicy} />
        </div>
      </div>
      {!trigger && (
        <label className="checkbox">
          <input type="checkbox" checked={draft.paused} onChange={(e) => set({ paused: e.target.checked })} /> Start paused
        </label>
      )}
      <ErrorBox error={error} />
      <div className="form-actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

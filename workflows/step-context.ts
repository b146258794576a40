// What a step reads of the steps before it, and how the run keeps it: values
// apart from references, so a value is data whatever its shape. Pure
// functions: the workflow (interpreter, loops) and the activities read
// contexts and results through here only.

/**
 * Where a value a step reads is, when the run does not carry it: the output
 * recorded under a step record's id (too large for history, built from
 * secrets and sealed, a replay's copy, an agent's), or an item of a loop's
 * stored items (`indexOnly`: its position). Only the service makes these,
 * and they travel apart from values (StepContext.refs): a value is data
 * whatever its shape, so nothing a caller sends is ever read as one.
 */
export type ValueRef = { record: string } | { loopItem: { stepId: string; index: number; indexOnly?: true } };

/**
 * What a step's templates read besides `$env` and `$connections`: `initial`,
 * and earlier outputs by name, each either a value the run carries
 * (`steps`) or where it is (`refs`); a name is in one of the two.
 */
export interface StepContext {
  initial?: Record<string, unknown>;
  steps: Record<string, unknown>;
  refs: Record<string, ValueRef>;
}

/** `name` now reads `value`, carried by the run. */
function carryValue(context: StepContext, name: string, value: unknown): void {
  delete context.refs[name];
  context.steps[name] = value;
}

/** `name` now reads what `ref` points at. */
export function carryRef(context: StepContext, name: string, ref: ValueRef): void {
  delete context.steps[name];
  context.refs[name] = ref;
}

/** What step `recordId`'s result leaves for the steps after it, under `name`: its output, or a reference to its record. */
export function carryResult(context: StepContext, name: string, recordId: string, result: StepResult): void {
  const kept = keptIn(result, recordId);
  if (kept === 'inline') carryValue(context, name, result.output);
  else carryRef(context, name, kept);
}

/**
 * Where a step result's output is. Results recorded before `kept` existed
 * (in the histories of runs started before it) said "in the record" with an
 * output shaped `{ $offloaded: { stepId: <its own record id> } }`; such a
 * result is read that way only in that exact shape, so even a caller's
 * payload recorded then can point at nothing but its own record, which holds
 * the same payload. Remove once no run started before 2026-11-28 can be in
 * flight: waits park for at most a year, so after 2027-12-01.
 */
function keptIn(result: StepResult, recordId: string): 'inline' | ValueRef {
  if (result.kept === 'record') return { record: recordId };
  if (result.kept === 'inline') return 'inline';
  const legacy = result.output as { $offloaded?: { stepId?: unknown } } | null;
  const isOwnReference =
    legacy !== null &&
    typeof legacy === 'object' &&
    Object.keys(legacy).length === 1 &&
    legacy.$offloaded !== null &&
    typeof legacy.$offloaded === 'object' &&
    Object.keys(legacy.$offloaded).length === 1 &&
    legacy.$offloaded.stepId === recordId;
  return isOwnReference ? { record: recordId } : 'inline';
}

/**
 * The context of a request as an activity reads it. A request scheduled by a
 * workflow before refs existed (a regular activity retried across the
 * deploy) carried references inside `steps` as `{ $offloaded }` and
 * `{ $loopItem }` objects, made by that workflow from its own state; they
 * are read back as references once, here. Remove with keptIn's fallback.
 */
export function contextOf(request: { context: StepContext }): StepContext {
  const context = request.context as Partial<StepContext> & Pick<StepContext, 'steps'>;
  if (context.refs !== undefined) return { ...context, refs: context.refs };
  const steps: Record<string, unknown> = {};
  const refs: Record<string, ValueRef> = {};
  for (const [name, value] of Object.entries(context.steps)) {
    const legacy = value as { $offloaded?: { stepId: string }; $loopItem?: { stepId: string; index: number; indexOnly?: true } } | null;
    if (legacy !== null && typeof legacy === 'object' && legacy.$offloaded) refs[name] = { record: legacy.$offloaded.stepId };
    else if (legacy !== null && typeof legacy === 'object' && legacy.$loopItem) refs[name] = { loopItem: legacy.$loopItem };
    else steps[name] = value;
  }
  return { ...context, steps, refs };
}

/** What a step activity returns. Only the activity says where the output is: a value in `output` is data, whatever its shape. */
export interface StepResult {
  /**
   * 'record': the output stays in the step's record (too large for history,
   * or built from secrets and sealed) and later steps read it there.
   * Results recorded in histories before it existed have none (carryResult).
   */
  kept: 'inline' | 'record';
  /** The output, when `kept` is 'inline'. */
  output?: unknown;
  /** UTF-8 size of what travels in history (`output`, or the reference to the record), for the run's inline budget. */
  bytes: number;
  /** A return step whose answer held secrets sealed it, unmasked, for the waiting caller. */
  sealedAnswer?: boolean;
}

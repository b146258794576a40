import type { StepResult } from './run.types';
import { carryResult, contextOf, type StepContext } from './step-context';

/** Values and references kept apart: every marker the code ever used, inside a value, stays a value. */

const MARKERS = [
  { $offloaded: { stepId: 'mk' } },
  { approved: true, $offloaded: { stepId: 'mk' } },
  { $loopItem: { stepId: 'loop', index: 0 } },
  { $loopItem: { stepId: 'loop', index: 0, indexOnly: true } },
  { record: 'mk' },
  { loopItem: { stepId: 'loop', index: 0 } },
  { kept: 'record', output: { record: 'mk' } },
];

const empty = (): StepContext => ({ steps: {}, refs: {} });

describe('carryResult', () => {
  test.each(MARKERS)('an inline output shaped like a marker is carried as a value: %j', (marker) => {
    const context = empty();
    carryResult(context, 'wait', 'wait', { kept: 'inline', output: marker, bytes: 40 });
    expect(context).toEqual({ steps: { wait: marker }, refs: {} });
  });

  test('an output kept in its record is carried as a reference to that record, and replaces a value of the same name', () => {
    const context: StepContext = { steps: { fetch: { old: true } }, refs: {} };
    carryResult(context, 'fetch', 'loop[2].fetch', { kept: 'record', bytes: 30 });
    expect(context).toEqual({ steps: {}, refs: { fetch: { record: 'loop[2].fetch' } } });
  });

  describe('results recorded before `kept` (histories of runs in flight across the change)', () => {
    const legacy = (output: unknown) => ({ output, bytes: 30 }) as unknown as StepResult;

    test('the reference an activity made then, to its own record, is still read as one', () => {
      const context = empty();
      carryResult(context, 'big', 'big', legacy({ $offloaded: { stepId: 'big' } }));
      expect(context).toEqual({ steps: {}, refs: { big: { record: 'big' } } });
    });

    test.each([
      ["another step's record", { $offloaded: { stepId: 'mk' } }],
      ['extra fields beside the marker', { approved: true, $offloaded: { stepId: 'wait' } }],
      ['extra fields inside the marker', { $offloaded: { stepId: 'wait', sealed: true } }],
      ['a loop item marker', { $loopItem: { stepId: 'loop', index: 0 } }],
    ])('anything else shaped like a marker is a value (%s)', (_what, output) => {
      const context = empty();
      carryResult(context, 'wait', 'wait', legacy(output));
      expect(context).toEqual({ steps: { wait: output }, refs: {} });
    });
  });
});

describe('contextOf', () => {
  test('a context with refs is read as it is: values shaped like markers stay values', () => {
    const context: StepContext = { initial: { a: 1 }, steps: { wait: MARKERS[0], loop: MARKERS[2] }, refs: { big: { record: 'big' } } };
    expect(contextOf({ context })).toEqual(context);
  });

  test('a request scheduled before refs existed has its references (made by the workflow then) read back', () => {
    const old = {
      steps: {
        fetch: { $offloaded: { stepId: 'fetch' } },
        item: { $loopItem: { stepId: 'loop', index: 3 } },
        index: { $loopItem: { stepId: 'loop', index: 3, indexOnly: true } },
        small: { v: 1 },
      },
    } as unknown as StepContext;
    expect(contextOf({ context: old })).toEqual({
      steps: { small: { v: 1 } },
      refs: {
        fetch: { record: 'fetch' },
        item: { loopItem: { stepId: 'loop', index: 3 } },
        index: { loopItem: { stepId: 'loop', index: 3, indexOnly: true } },
      },
    });
  });
});

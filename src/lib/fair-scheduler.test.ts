import { FairScheduler } from './fair-scheduler';

class Full extends Error {}

/** A scheduler whose tasks run until the test ends them; `started` lists their names in start order. */
function harness(options: { concurrency: number; perKey: number; maxWaitingPerKey?: number }) {
  const scheduler = new FairScheduler({ maxWaitingPerKey: 100, ...options, whenFull: () => new Full('full') });
  const started: string[] = [];
  const finishers = new Map<string, { resolve(): void; reject(err: Error): void }>();
  const submit = (key: string, name: string) =>
    scheduler.run(key, () => {
      started.push(name);
      return new Promise<string>((resolve, reject) => finishers.set(name, { resolve: () => resolve(name), reject }));
    });
  const finish = async (name: string) => {
    finishers.get(name)!.resolve();
    await flush();
  };
  return { scheduler, started, submit, finish, fail: (name: string) => finishers.get(name)!.reject(new Error(name)) };
}

/** Lets settled promises run their continuations. */
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('FairScheduler', () => {
  it('runs at most `concurrency` tasks, and one key at most `perKey` of them', async () => {
    const { scheduler, started, submit } = harness({ concurrency: 3, perKey: 2 });
    for (let i = 0; i < 4; i++) void submit('a', `a${i}`);
    await flush();
    expect(started).toEqual(['a0', 'a1']);
    expect(scheduler.stats('a')).toEqual({ running: 2, waiting: 2 });

    // The slot `a` may not take goes to another key at once.
    void submit('b', 'b0');
    void submit('c', 'c0');
    await flush();
    expect(started).toEqual(['a0', 'a1', 'b0']);
    expect(scheduler.stats('c')).toEqual({ running: 0, waiting: 1 });
  });

  it('gives freed slots to the keys with work waiting in turn', async () => {
    const { started, submit, finish } = harness({ concurrency: 1, perKey: 1 });
    for (let i = 0; i < 3; i++) void submit('a', `a${i}`);
    for (let i = 0; i < 3; i++) void submit('b', `b${i}`);
    void submit('c', 'c0');
    await flush();
    for (const name of ['a0', 'b0', 'c0', 'a1', 'b1', 'a2']) await finish(name);
    expect(started).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2', 'b2']);
  });

  it('a key that went idle and comes back keeps its place: it does not jump ahead of keys waiting', async () => {
    const { started, submit, finish } = harness({ concurrency: 1, perKey: 1 });
    void submit('a', 'a0');
    await flush();
    void submit('b', 'b0');
    await finish('a0'); // b0 starts; a is idle now, its last start remembered
    void submit('a', 'a1'); // back before c arrives; but it has run already, and c never has
    void submit('c', 'c0');
    await flush();
    await finish('b0');
    await finish('c0');
    expect(started).toEqual(['a0', 'b0', 'c0', 'a1']);
  });

  it("keeps each key's own tasks in arrival order", async () => {
    const { started, submit, finish } = harness({ concurrency: 2, perKey: 1 });
    for (let i = 0; i < 3; i++) void submit('a', `a${i}`);
    await flush();
    await finish('a0');
    await finish('a1');
    expect(started).toEqual(['a0', 'a1', 'a2']);
  });

  it('refuses a task past the waiting limit of its key, and only of its key', async () => {
    const { scheduler, started, submit, finish } = harness({ concurrency: 2, perKey: 1, maxWaitingPerKey: 2 });
    const a = [0, 1, 2].map((i) => submit('a', `a${i}`));
    await expect(submit('a', 'a3')).rejects.toBeInstanceOf(Full);
    expect(scheduler.stats('a')).toEqual({ running: 1, waiting: 2 });
    // A task that starts at once is not waiting: b's first is never refused.
    void submit('b', 'b0');
    await flush();
    expect(started).toEqual(['a0', 'b0']);

    await finish('a0');
    await expect(a[0]).resolves.toBe('a0');
    // One of a's waiting tasks started, so there is room again.
    void submit('a', 'a3');
    await flush();
    expect(scheduler.stats('a')).toEqual({ running: 1, waiting: 2 });
  });

  it('frees the slot of a task that fails', async () => {
    const { scheduler, started, submit, fail } = harness({ concurrency: 1, perKey: 1 });
    const first = submit('a', 'a0');
    void submit('b', 'b0');
    await flush();
    fail('a0');
    await expect(first).rejects.toThrow('a0');
    await flush();
    expect(started).toEqual(['a0', 'b0']);
    expect(scheduler.stats('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('with one slot per key and more slots than keys, runs every key at once', async () => {
    const { started, submit } = harness({ concurrency: 4, perKey: 1 });
    for (const key of ['a', 'a', 'b', 'c']) void submit(key, `${key}${started.length}`);
    await flush();
    expect(started.map((n) => n[0]).sort()).toEqual(['a', 'b', 'c']);
  });

  describe('with a wait deadline', () => {
    class Late extends Error {}
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    const scheduler = () =>
      new FairScheduler({
        concurrency: 1,
        perKey: 1,
        maxWaitingPerKey: 10,
        maxWaitMs: 1000,
        whenFull: () => new Error('full'),
        whenLate: () => new Late('late'),
      });

    it('refuses a task not started in time, and the queue goes on without it', async () => {
      const s = scheduler();
      const release = await s.slot('a');
      const late = s.slot('a');
      const caught = late.catch((err: unknown) => err);
      jest.advanceTimersByTime(999);
      expect(s.stats('a')).toEqual({ running: 1, waiting: 1 });
      jest.advanceTimersByTime(1);
      await expect(caught).resolves.toBeInstanceOf(Late);
      expect(s.stats('a')).toEqual({ running: 1, waiting: 0 });

      // The late one holds nothing: the next waiter gets the slot as soon as it is freed.
      const next = s.slot('b');
      release();
      release(); // freeing twice frees once
      const releaseNext = await next;
      expect(s.stats('b')).toEqual({ running: 1, waiting: 0 });
      releaseNext();
      expect(s.stats('b')).toEqual({ running: 0, waiting: 0 });
      expect(s.stats('a')).toEqual({ running: 0, waiting: 0 });
    });

    it('a task started before its deadline is not refused later', async () => {
      const s = scheduler();
      const release = await s.slot('a');
      const waiting = s.slot('a');
      jest.advanceTimersByTime(500);
      release();
      const second = await waiting;
      jest.advanceTimersByTime(5000);
      expect(s.stats('a')).toEqual({ running: 1, waiting: 0 });
      second();
    });
  });
});

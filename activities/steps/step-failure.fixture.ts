import { ApplicationFailure } from '@temporalio/common';

/** The ApplicationFailure a step's activity failed with (the test fails if it did not fail so). */
export async function failureOf(work: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApplicationFailure);
  return err as ApplicationFailure;
}

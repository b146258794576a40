import type { SecretBox } from '../crypto/secret-box';

/** What a step sealed: its output as it was, and the secret values in it, which every later step masks in turn. */
export interface SealedOutput {
  output: unknown;
  secrets: string[];
}

const record = (executionId: string, stepId: string) => `execution:${executionId}|step:${stepId}|output`;

/**
 * Keeps a step's output as it was when it holds values built from secrets
 * (`Bearer {{ $env.TOKEN }}` in a core.set step), encrypted under the
 * organization's key in the step's record. What the service shows and what
 * Temporal's history carries stay masked; later steps of the run open the
 * sealed output, so a derived credential reaches its receiver exact, and
 * they learn its secrets, so their own records mask it too.
 */
export class StepOutputSeals {
  constructor(private readonly box: Pick<SecretBox, 'encryptJson' | 'decryptJson'>) {}

  seal(organizationId: string, executionId: string, stepId: string, sealed: SealedOutput): Promise<string> {
    return this.box.encryptJson(organizationId, record(executionId, stepId), sealed);
  }

  open(organizationId: string, executionId: string, stepId: string, envelope: string): Promise<SealedOutput> {
    return this.box.decryptJson<SealedOutput>(organizationId, record(executionId, stepId), envelope);
  }
}

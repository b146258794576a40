import { ApiError, type FieldProblem } from '../api/client';

/** The first of a 400's `error.details` naming `path` or a field inside it (`verification` matches `verification.header`). */
export function problemAt(error: unknown, path: string): FieldProblem | undefined {
  if (!(error instanceof ApiError)) return undefined;
  return error.details.find((d) => d.path === path || d.path.startsWith(`${path}.`));
}

/** The attributes tying an input to its problem note: `aria-invalid`, and `aria-describedby` naming the note (and a hint, if any). */
export function problemProps(id: string, problem: FieldProblem | undefined, hintId?: string) {
  const describedBy = [problem ? `${id}-problem` : undefined, hintId].filter(Boolean).join(' ');
  return { 'aria-invalid': problem ? true : undefined, 'aria-describedby': describedBy || undefined };
}

/** A field's problem as the API words it, beside the field (`problemProps` points the field at it). */
export function ProblemNote({ id, problem }: { id: string; problem: FieldProblem | undefined }) {
  if (!problem) return null;
  return (
    <p id={`${id}-problem`} className="field-problem">
      {problem.message}
    </p>
  );
}

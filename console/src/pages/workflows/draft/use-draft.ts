import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, del, get, post, put } from '../../../api/client';
import type { ApiSchema } from '../../../api/schemas';
import type { Execution, RunStarted } from '../../runs/run-model';
import type { Workflow } from '../workflow-model';

export type Draft = ApiSchema<'Draft'>;
export type StepTest = (Execution | RunStarted) & { missing: string[] };

/** How long typing pauses before the draft is saved. */
const SAVE_DELAY_MS = 700;

/** The caller's draft, or null when they have none. */
const loadDraft = (path: string): Promise<Draft | null> =>
  get<Draft>(path).catch((err: unknown) => (err instanceof ApiError && err.status === 404 ? null : Promise.reject(err)));

/** Drafts asked for before their editor mounts, by path; each is taken once. */
const early = new Map<string, Promise<Draft | null>>();

/**
 * Starts reading the caller's draft of a workflow beside the workflow itself
 * (the page knows the id before the workflow arrives): the editor then opens
 * one round trip sooner.
 */
export function prefetchDraft(workflowId: string): void {
  const path = `/workflows/${workflowId}/draft`;
  if (early.has(path)) return;
  const pending = loadDraft(path);
  // Never taken (the person left first): its failure is nobody's to report.
  pending.catch(() => undefined);
  early.set(path, pending);
}

export type SaveState = { kind: 'idle' } | { kind: 'pending' } | { kind: 'saving' } | { kind: 'saved'; at: string } | { kind: 'unsaved'; why: string };

/**
 * The caller's draft of a workflow: loaded once (none until the first edit),
 * saved on the server as the text changes (after a pause; text that does not
 * parse is kept in the editor, not saved), published, discarded, pinned and
 * tested. Each person has their own draft (the API's choice, docs/workflows.md).
 */
export function useDraft(workflow: Workflow) {
  const path = `/workflows/${workflow.id}/draft`;
  const [draft, setDraft] = useState<Draft | null | undefined>(undefined);
  const [loadError, setLoadError] = useState<unknown>();
  const [save, setSave] = useState<SaveState>({ kind: 'idle' });
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const latest = useRef<string | undefined>(undefined);
  const inFlight = useRef<Promise<void>>(Promise.resolve());

  useEffect(() => {
    let live = true;
    const pending = early.get(path) ?? loadDraft(path);
    early.delete(path);
    pending.then(
      (d) => live && setDraft(d),
      (err: unknown) => live && setLoadError(err),
    );
    return () => {
      live = false;
      clearTimeout(timer.current);
    };
  }, [path]);

  /** Saves `latest` now (the last text typed), unless it was saved already. */
  const flush = useCallback(async () => {
    clearTimeout(timer.current);
    await inFlight.current;
    const text = latest.current;
    if (text === undefined) return;
    latest.current = undefined;
    let definition: unknown;
    try {
      definition = JSON.parse(text);
    } catch {
      setSave({ kind: 'unsaved', why: 'the JSON does not parse yet' });
      return;
    }
    if (!definition || typeof definition !== 'object' || Array.isArray(definition)) {
      setSave({ kind: 'unsaved', why: 'a definition is a JSON object' });
      return;
    }
    setSave({ kind: 'saving' });
    const saving = put<Draft>(path, { definition, baseVersion: workflow.version }).then(
      (d) => {
        setDraft(d);
        setSave({ kind: 'saved', at: d.updatedAt });
      },
      (err: unknown) => setSave({ kind: 'unsaved', why: err instanceof Error ? err.message : String(err) }),
    );
    inFlight.current = saving;
    await saving;
  }, [path, workflow.version]);

  const edited = useCallback(
    (text: string) => {
      latest.current = text;
      setSave({ kind: 'pending' });
      clearTimeout(timer.current);
      timer.current = setTimeout(() => void flush(), SAVE_DELAY_MS);
    },
    [flush],
  );

  const publish = useCallback(
    async (definition: unknown, force = false) => {
      latest.current = JSON.stringify(definition, null, 2);
      await flush();
      const saved = await post<Workflow>(`${path}/publish`, { force });
      setDraft(null);
      return saved;
    },
    [flush, path],
  );

  const discard = useCallback(async () => {
    clearTimeout(timer.current);
    latest.current = undefined;
    await del<Draft>(path);
    setDraft(null);
    setSave({ kind: 'idle' });
  }, [path]);

  const pin = useCallback(
    async (stepId: string, body: { executionId: string } | { output: unknown }) => setDraft(await put<Draft>(`${path}/pins/${stepId}`, body)),
    [path],
  );
  const unpin = useCallback(async (stepId: string) => setDraft(await del<Draft>(`${path}/pins/${stepId}`)), [path]);

  /** Tests one step; the draft is saved first, so the test runs what is on screen. */
  const testStep = useCallback(
    async (stepId: string, body: { executionId?: string; initial?: Record<string, unknown> }, text: string) => {
      latest.current = text;
      await flush();
      return post<StepTest>(`${path}/steps/${stepId}/test`, body);
    },
    [flush, path],
  );

  return { draft, loadError, save, edited, flush, publish, discard, pin, unpin, testStep };
}

/**
 * Cube works on a query in three phases: its gateway reads it (schema, filters,
 * date ranges), the compiled model turns it into SQL, and the orchestrator runs
 * that SQL. The first two see only the query and the organization's model, so
 * any failure there is a refusal of the query. Cube does not say so itself:
 * most refusals are its UserErrors, but the SQL builder also fails with plain
 * errors ("Path can't be undefined" for a measureFilter on a dimension, a
 * TypeError for a date operator on a measure), which its gateway answers as
 * 500s, and the database's own errors come back as 400s like UserErrors.
 *
 * markRefusals wraps the two phases of one gateway so that whatever they throw
 * reaches the gateway as a QueryRefused (Cube's `type: 'UserError'`, which the
 * gateway answers as a 400 with that type); everything else, including the
 * compilation of the model itself, keeps its own error.
 */

/**
 * A failure Cube answered. `refused`: Cube refused the query itself, while
 * reading it or building its SQL (markRefusals below), so the caller can fix
 * it; otherwise the failure came from running it (the database: a timeout, a
 * lost connection) or from Cube's internals.
 */
export class CubeQueryError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly refused = false,
  ) {
    super(message);
  }
}

/** Cube refused the query while reading it or building its SQL. */
export class QueryRefused extends Error {
  /** The duck type by which Cube's gateway recognises a UserError (and answers 400 with `type: 'UserError'`). */
  readonly type = 'UserError';
}

/** What a plain (not UserError) failure of the SQL builder is told as: its own text is Cube's internals, not the caller's. */
export const UNEXPLAINED_REFUSAL = 'Cube could not build SQL for this query';

type Logged = (error: { message: string; stack?: string }) => void;

interface CompilerApi {
  getCompilers(options: { requestId?: unknown }): Promise<unknown>;
  getSql(query: { requestId?: unknown }, options?: unknown): Promise<unknown>;
}

interface PhasedGateway {
  getNormalizedQueries(...args: unknown[]): Promise<unknown>;
  getCompilerApi(context: unknown): Promise<CompilerApi>;
}

const MARKED = Symbol('refusalsMarked');

/** Cube's UserErrors (the gateway's and the schema compiler's) keep their message; any other failure gets UNEXPLAINED_REFUSAL. */
function refusal(err: unknown, unexplained: Logged): QueryRefused {
  if (err instanceof QueryRefused) return err;
  const e = err as { message?: unknown; type?: unknown; status?: unknown; stack?: string } | undefined;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  // The gateway's UserError is a CubejsHandlerError with status 400; the compiler's has type 'UserError'.
  if (e?.type === 'UserError' || (e?.type === 'User Error' && e?.status === 400)) return new QueryRefused(message);
  unexplained({ message, stack: e?.stack });
  return new QueryRefused(UNEXPLAINED_REFUSAL);
}

/**
 * Wraps `gateway`'s reading of queries and the `getSql` of each compiler API
 * it hands out. `unexplained` is told the original of every failure that is
 * not one of Cube's UserErrors (it could be a defect: it is worth a log line).
 */
export function markRefusals(gateway: PhasedGateway, unexplained: Logged): void {
  const normalize = gateway.getNormalizedQueries.bind(gateway);
  gateway.getNormalizedQueries = (...args) =>
    normalize(...args).catch((err: unknown) => {
      throw refusal(err, unexplained);
    });
  const compilerApiOf = gateway.getCompilerApi.bind(gateway);
  gateway.getCompilerApi = async (context) => {
    // One compiler API per organization and model version, cached by Cube: wrapped once.
    const api = (await compilerApiOf(context)) as CompilerApi & { [MARKED]?: true };
    if (api[MARKED]) return api;
    const getSql = api.getSql.bind(api);
    api.getSql = async (query, options) => {
      // The model compiles first (or comes from Cube's cache): its failures are not the query's.
      await api.getCompilers({ requestId: query.requestId });
      try {
        return await getSql(query, options);
      } catch (err) {
        throw refusal(err, unexplained);
      }
    };
    api[MARKED] = true;
    return api;
  };
}

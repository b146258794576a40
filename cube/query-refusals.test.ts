import { markRefusals, QueryRefused, UNEXPLAINED_REFUSAL } from './query-refusals';

/** Cube's two UserErrors: the gateway's (a CubejsHandlerError) and the schema compiler's. */
const gatewayUserError = (message: string) => Object.assign(new Error(message), { status: 400, type: 'User Error' });
const compilerUserError = (message: string) => Object.assign(new Error(message), { type: 'UserError' });

function gatewayWith(opts: { normalize?: () => Promise<unknown>; compilers?: () => Promise<unknown>; sql?: () => Promise<unknown> }) {
  const api = {
    getCompilers: jest.fn(async (..._args: unknown[]) => (opts.compilers ? opts.compilers() : {})),
    getSql: jest.fn(async (..._args: unknown[]) => (opts.sql ? opts.sql() : { sql: ['SELECT 1', []] })),
  };
  const gateway = {
    getNormalizedQueries: jest.fn(async (..._args: unknown[]) => (opts.normalize ? opts.normalize() : ['regularQuery', []])),
    getCompilerApi: jest.fn(async (..._args: unknown[]) => api),
  };
  const unexplained = jest.fn();
  markRefusals(gateway, unexplained);
  return { gateway, api, unexplained };
}

describe('markRefusals', () => {
  it("keeps the message of Cube's UserErrors, from reading the query and from building its SQL", async () => {
    const reading = gatewayWith({ normalize: async () => Promise.reject(gatewayUserError("Can't parse date: 'whenever'")) });
    await expect(reading.gateway.getNormalizedQueries({})).rejects.toEqual(new QueryRefused("Can't parse date: 'whenever'"));
    const building = gatewayWith({ sql: async () => Promise.reject(compilerUserError('You cannot use dimension and measure in same condition')) });
    const api = await building.gateway.getCompilerApi({});
    const refused = await api.getSql({ requestId: 'r' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QueryRefused);
    expect(refused).toMatchObject({ type: 'UserError', message: 'You cannot use dimension and measure in same condition' });
    expect(building.unexplained).not.toHaveBeenCalled();
  });

  it("turns the SQL builder's plain errors into a refusal with a fixed message, and reports the original", async () => {
    const { gateway, unexplained } = gatewayWith({ sql: async () => Promise.reject(new TypeError("Cannot read properties of null (reading 'split')")) });
    const api = await gateway.getCompilerApi({});
    await expect(api.getSql({})).rejects.toEqual(new QueryRefused(UNEXPLAINED_REFUSAL));
    expect(unexplained).toHaveBeenCalledWith(expect.objectContaining({ message: "Cannot read properties of null (reading 'split')" }));
  });

  it('leaves a failure to compile the model (its sources could not be read) as it is: not the query’s', async () => {
    const down = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    const { gateway, api } = gatewayWith({ compilers: async () => Promise.reject(down) });
    const buildSql = api.getSql;
    const wrapped = await gateway.getCompilerApi({});
    await expect(wrapped.getSql({})).rejects.toBe(down);
    expect(buildSql).not.toHaveBeenCalled();
  });

  it('wraps each compiler API once, however often the gateway asks for it', async () => {
    const { gateway, api } = gatewayWith({});
    const first = await gateway.getCompilerApi({});
    const getSql = first.getSql;
    expect(await gateway.getCompilerApi({})).toBe(first);
    expect(first.getSql).toBe(getSql);
    await first.getSql({});
    expect(api.getCompilers).toHaveBeenCalledTimes(1);
  });
});

import { loggedPath } from './request-log';

describe('loggedPath', () => {
  test('drops the query string and replaces a resume link token by the route', () => {
    expect(loggedPath('/executions/abc?status=failed')).toBe('/executions/abc');
    expect(loggedPath('/resume/3q2-Fx_token-value?x=1')).toBe('/resume/:token');
    expect(loggedPath('/resume/tok/extra')).toBe('/resume/:token/extra');
    expect(loggedPath('/w/@org/resume')).toBe('/w/@org/resume');
  });
});

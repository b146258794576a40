import { loggedPath } from './request-log';

describe('loggedPath', () => {
  test('drops the query string and replaces a resume link token by the route', () => {
    expect(loggedPath('/executions/abc?status=failed')).toBe('/executions/abc');
    expect(loggedPath('/resume/3q2-Fx_token-value?x=1')).toBe('/resume/:token');
    expect(loggedPath('/resume/tok/extra')).toBe('/resume/:token/extra');
    expect(loggedPath('/w/@org/resume')).toBe('/w/@org/resume');
    expect(loggedPath('/resumes/not-a-token')).toBe('/resumes/not-a-token');
  });

  test('replaces the token whatever the spelling of /resume: a 404 may still carry a live token', () => {
    expect(loggedPath('/RESUME/3q2-Fx_token-value')).toBe('/RESUME/:token');
    expect(loggedPath('/ReSuMe/3q2-Fx_token-value?x=1')).toBe('/ReSuMe/:token');
    expect(loggedPath('/%72esume/3q2-Fx_token-value')).toBe('/%72esume/:token');
    expect(loggedPath('//resume//3q2-Fx_token-value/')).toBe('//resume//:token/');
    expect(loggedPath('/%E0%A4%A/3q2-Fx_token-value')).toBe('/%E0%A4%A/3q2-Fx_token-value');
  });

  test('an absolute-form request target (routed by its path) loses its token too', () => {
    expect(loggedPath('http://flowbase.example.test/resume/3q2-Fx_token-value')).toBe('http://flowbase.example.test/resume/:token');
    expect(loggedPath('HTTPS://flowbase.example.test:8443/Resume/3q2-Fx_token-value')).toBe('HTTPS://flowbase.example.test:8443/Resume/:token');
  });

  test('a console invitation link loses its code, which lets its holder join the organization', () => {
    expect(loggedPath('/console/invitations/inv_3q2-Fx-code?x=1')).toBe('/console/invitations/:code');
    expect(loggedPath('//console//%69nvitations/inv_3q2-Fx-code/')).toBe('//console//%69nvitations/:code/');
    expect(loggedPath('/console/invitations/joined')).toBe('/console/invitations/joined');
    expect(loggedPath('/console/runs/abc')).toBe('/console/runs/abc');
  });
});

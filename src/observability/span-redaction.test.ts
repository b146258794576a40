import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { outboundUrlAttributes } from './span-redaction';
import { markTracingOn, withMasking } from './trace-context';

describe('span redaction', () => {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    markTracingOn();
  });
  afterAll(() => context.disable());

  it('drops the query string of an outbound URL and masks the path as the step masks its record', () => {
    const mask = (text: string) => text.replaceAll('sk_live_123', '****');
    const attributes = withMasking(mask, () => outboundUrlAttributes('https://api.vendor.test', '/bot/sk_live_123/send?api_key=abc&x=1'));
    expect(attributes).toEqual({ 'url.path': '/bot/****/send', 'url.full': 'https://api.vendor.test/bot/****/send', 'url.query': undefined });
  });

  it('keeps the path as it is outside a step', () => {
    expect(outboundUrlAttributes('http://127.0.0.1:9', '/a/b?c=d')).toMatchObject({ 'url.full': 'http://127.0.0.1:9/a/b' });
  });
});

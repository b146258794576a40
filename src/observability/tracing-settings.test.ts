import { tracingSettings, TracingSettingsError } from './tracing-settings';

describe('tracing settings (OTEL_*)', () => {
  it('is off, and loads nothing, without an endpoint, when the SDK is disabled, or with the none exporter', () => {
    expect(tracingSettings({})).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
  });

  it('sends to <endpoint>/v1/traces, or to the traces endpoint as given, over http/protobuf unless told http/json', () => {
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      protocol: 'http/protobuf',
      url: 'http://collector:4318/v1/traces',
      serviceName: 'flowbase',
    });
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.vendor.test/api/traces',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'flowbase-eu',
      }),
    ).toEqual({ protocol: 'http/json', url: 'https://otlp.vendor.test/api/traces', serviceName: 'flowbase-eu' });
  });

  it('refuses at start what the SDK would ignore with a warning, naming each variable and never a header value', () => {
    const problems = () =>
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
        OTEL_TRACES_SAMPLER: 'sometimes',
        OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer s3cret,broken-entry',
        OTEL_TRACES_EXPORTER: 'zipkin',
      });
    expect(problems).toThrow(TracingSettingsError);
    let message = '';
    try {
      problems();
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of [
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      'OTEL_TRACES_SAMPLER',
      'OTEL_EXPORTER_OTLP_HEADERS: entry 2',
      'OTEL_TRACES_EXPORTER',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain('s3cret');
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });
});

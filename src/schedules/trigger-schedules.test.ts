import { ServiceError } from '@temporalio/client';
import { specRefusal } from './trigger-schedules';

const grpcError = (code: number, details: string) => Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
/** A TypeError made where the client makes its refusals (ScheduleClient.rethrowGrpcError). */
function rethrowGrpcError(message: string): TypeError {
  return new TypeError(message);
}

describe('specRefusal', () => {
  test('Temporal refusing a spec is recognised, whether the client turned it into a TypeError or passed the gRPC error on', () => {
    expect(specRefusal(rethrowGrpcError('DayOfMonth is not in range [1-31]'))).toBe('DayOfMonth is not in range [1-31]');
    expect(specRefusal(rethrowGrpcError('unknown time zone europe/paris'))).toBe('unknown time zone europe/paris');
    const wrapped = new ServiceError('Failed to create schedule', { cause: grpcError(3, 'Invalid schedule spec: unknown time zone utc') });
    expect(specRefusal(wrapped)).toBe('Invalid schedule spec: unknown time zone utc');
  });

  test("the client's own TypeErrors, other refusals and other failures are not the user's spec", () => {
    expect(specRefusal(new TypeError("Missing options.action.taskQueue for 'startWorkflow' action"))).toBeUndefined();
    expect(specRefusal(new TypeError('Unsupported schedule action'))).toBeUndefined();
    expect(specRefusal(new TypeError("Cannot read properties of undefined (reading 'spec')"))).toBeUndefined();
    expect(specRefusal(new ServiceError('Failed', { cause: grpcError(3, 'memo is too large') }))).toBeUndefined();
    expect(specRefusal(new ServiceError('Failed', { cause: grpcError(14, 'Invalid schedule spec: unavailable') }))).toBeUndefined();
    expect(specRefusal(new Error('connection reset'))).toBeUndefined();
  });
});

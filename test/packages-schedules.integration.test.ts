import { ScheduleNotFoundError } from '@temporalio/client';
import { FeedSchedules } from '../src/data-feeds/feed-schedules';
import { feedScheduleId } from '../workflows/data-feed-sync.types';
import { as, expectError, expectStatus, type Harness, startHarness } from './harness';
import { createTestOrg, type TestOrg, uniqueName } from './factories';
import { footprint, install, packageDef, sourceDef, workflowDef } from './package-fixtures';

/**
 * What a package's deletes leave in Temporal (docs/packages.md,
 * "Uninstalling"): an uninstall, and a reinstall that drops items, delete the
 * Temporal Schedules of the schedule triggers of the workflows they delete and
 * the feed schedules of the sources they delete, through the same hooks as
 * DELETE /workflows/{id} and DELETE /dashboards/data-sources/{id}, once their
 * transaction has committed; one that is rolled back deletes none.
 */

let h: Harness;
beforeAll(async () => (h = await startHarness()));
afterAll(() => h.close());

type Json = Record<string, any>;
const owner = (org: TestOrg) => as(h.app, org.ownerToken);

async function installed(org: TestOrg, body: unknown): Promise<Json> {
  const res = await install(h.app, org, body);
  expectStatus(res, 201);
  return res.body.package;
}

const describeSchedule = (scheduleId: string) => h.services.temporal.client.schedule.getHandle(scheduleId).describe();

async function expectScheduleGone(scheduleId: string): Promise<void> {
  await expect(describeSchedule(scheduleId)).rejects.toBeInstanceOf(ScheduleNotFoundError);
}

/** A schedule trigger on the workflow (paused: it never fires during the test); returns the trigger with its Temporal Schedule's id. */
async function scheduleTrigger(org: TestOrg, workflowId: string): Promise<{ id: string; temporalScheduleId: string }> {
  const res = await owner(org)
    .post(`/workflows/${workflowId}/triggers`)
    .send({ type: 'schedule', name: uniqueName('nightly'), schedule: { cron: '0 3 * * *' }, paused: true });
  expectStatus(res, 201);
  await describeSchedule(res.body.temporalScheduleId);
  return res.body;
}

/**
 * Gives the package's source a feed as a feed's toggle gives its source one:
 * a feed's type and the Temporal Schedule FeedSchedules makes
 * (`feed-sync:<id>`, weekly: it never fires during the test). No route gives
 * a package's source a feed today (a package creates custom sources only), so
 * the type is written by hand; what the test pins is that the package's delete
 * of the source runs the same hook as DELETE /dashboards/data-sources/{id},
 * which deletes the schedule of any source that is not custom.
 */
async function withFeedSchedule(org: TestOrg, dataSourceId: string): Promise<string> {
  await h.services.db.query(`UPDATE data_sources SET type = 'twilio:calls' WHERE organization_id = $1 AND id = $2`, [org.organizationId, dataSourceId]);
  const schedules = new FeedSchedules(h.services.temporal.client, h.services.config.temporal.taskQueue);
  await schedules.activate({ organizationId: org.organizationId, dataSourceId, feedKey: 'twilio:calls' }, 10_080);
  await describeSchedule(feedScheduleId(dataSourceId));
  return feedScheduleId(dataSourceId);
}

const timedKit = (table: string, version = '1.0.0', parts: { workflows?: Json[]; dataSources?: Json[] } = {}) =>
  packageDef('timed-kit', version, {
    dataSources: parts.dataSources ?? [sourceDef('Calls', table)],
    workflows: parts.workflows ?? [workflowDef('nightly'), workflowDef('hourly')],
  });

test("uninstalling deletes its workflows' schedule trigger schedules and its sources' feed schedules", async () => {
  const org = await createTestOrg(h.services);
  const pkg = await installed(org, timedKit(uniqueName('calls')));
  const workflowId = (name: string) => pkg.workflows.find((w: Json) => w.name === name).id;
  const nightly = await scheduleTrigger(org, workflowId('nightly'));
  const alsoNightly = await scheduleTrigger(org, workflowId('nightly'));
  const hourly = await scheduleTrigger(org, workflowId('hourly'));
  const feed = await withFeedSchedule(org, pkg.dataSources[0].id);

  const res = await owner(org).delete(`/packages/${pkg.id}`);
  expectStatus(res, 200);
  expect(res.body.removed.workflows.map((w: Json) => w.name).sort()).toEqual(['hourly', 'nightly']);
  expect(res.body.removed.dataSources).toEqual(pkg.dataSources);

  for (const trigger of [nightly, alsoNightly, hourly]) {
    await expectScheduleGone(trigger.temporalScheduleId);
    expectError(await owner(org).get(`/schedule-triggers/${trigger.id}`), 404);
  }
  await expectScheduleGone(feed);
});

test("a reinstall that drops a workflow and a source deletes their schedules; a workflow it keeps keeps its trigger's", async () => {
  const org = await createTestOrg(h.services);
  const [calls, texts] = [uniqueName('calls'), uniqueName('texts')];
  const first = await installed(org, timedKit(calls, '1.0.0', { dataSources: [sourceDef('Calls', calls), sourceDef('Texts', texts)] }));
  const byName = (list: Json[], name: string) => list.find((i) => i.name === name)!.id;
  const dropped = await scheduleTrigger(org, byName(first.workflows, 'hourly'));
  const kept = await scheduleTrigger(org, byName(first.workflows, 'nightly'));
  const droppedFeed = await withFeedSchedule(org, byName(first.dataSources, 'Texts'));

  await installed(org, timedKit(calls, '1.1.0', { workflows: [workflowDef('nightly')] }));

  await expectScheduleGone(dropped.temporalScheduleId);
  await expectScheduleGone(droppedFeed);
  expect((await describeSchedule(kept.temporalScheduleId)).scheduleId).toBe(kept.temporalScheduleId);
  expectStatus(await owner(org).get(`/schedule-triggers/${kept.id}`), 200);
});

test('an uninstall refused after it deleted workflows deletes no schedule: Temporal is only told once the transaction commits', async () => {
  // A sharing plan: the package's table is shared, so deleting its source (after the workflows) is refused and all rolls back.
  const org = await createTestOrg(h.services, 'business');
  const other = await createTestOrg(h.services);
  const table = uniqueName('calls');
  const pkg = await installed(org, timedKit(table));
  const nightly = await scheduleTrigger(org, pkg.workflows[0].id);
  const feed = await withFeedSchedule(org, pkg.dataSources[0].id);
  expectStatus(await owner(org).post('/dashboards/shares').send({ tableName: table, sharedToOrganizationId: other.organizationId }), 201);
  const before = await footprint(h.services.db, org);

  expectError(await owner(org).delete(`/packages/${pkg.id}`), 400, 'share_dependency');

  expect(await footprint(h.services.db, org)).toEqual(before);
  expectStatus(await owner(org).get(`/schedule-triggers/${nightly.id}`), 200);
  expect((await describeSchedule(nightly.temporalScheduleId)).scheduleId).toBe(nightly.temporalScheduleId);
  expect((await describeSchedule(feed)).scheduleId).toBe(feed);
});

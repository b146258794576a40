import type { Express } from 'express';
import { as, expectStatus } from './harness';
import { type Records, seedRecords, type TestOrg, uniqueName } from './factories';

type Json = Record<string, any>;

/** The fields of the sales sources dashboard tests build: a time dimension, a measure and a string dimension. */
export const SALES_FIELDS = {
  at: { type: 'date', label: 'At', timeDimension: true },
  amount: { type: 'number', label: 'Amount', measure: true },
  region: { type: 'string', label: 'Region' },
};

const ONE_SALE = { k1: { at: '2026-03-10T03:30:00Z', amount: 10, region: 'EU' } };

/** A data source (as the API answers it) over a new table of the organization holding `records`. */
export async function createSalesSource(app: Express, org: TestOrg, records: Records = ONE_SALE, name = uniqueName('Orders')): Promise<Json> {
  const table = uniqueName('orders');
  await seedRecords(app, org, table, records);
  const res = await as(app, org.ownerToken)
    .post('/dashboards/data-sources')
    .send({ name, dataStoreTableName: table, recordSchema: { name: 'Orders', fields: SALES_FIELDS } });
  expectStatus(res, 201);
  return res.body;
}

/** A dashboard of the organization, created by its owner. */
export async function createDashboard(app: Express, org: TestOrg, body: Json = {}): Promise<Json> {
  const res = await as(app, org.ownerToken)
    .post('/dashboards')
    .send({ name: uniqueName('Dash'), ...body });
  expectStatus(res, 201);
  return res.body;
}

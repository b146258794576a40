import { changeField, draftsOf, fieldsOf, labelOf, rolesFor, timeFieldOf } from './source-fields';

const INFERRED = {
  amount: { type: 'number' as const, label: 'Amount', measure: true },
  placedAt: { type: 'date' as const, label: 'Placed at' },
  shippedAt: { type: 'date' as const, label: 'Shipped at' },
  region: { type: 'string' as const, label: 'Region' },
};

describe('source field drafts', () => {
  test('inferred fields get the first date field as time dimension; a saved schema keeps its own', () => {
    expect(draftsOf(INFERRED, true).map((d) => [d.name, d.role])).toEqual([
      ['amount', 'measure'],
      ['placedAt', 'time'],
      ['shippedAt', 'dimension'],
      ['region', 'dimension'],
    ]);
    expect(timeFieldOf(draftsOf(INFERRED))).toBeUndefined();
    expect(timeFieldOf(draftsOf({ ...INFERRED, shippedAt: { ...INFERRED.shippedAt, timeDimension: true } }, true))).toBe('shippedAt');
  });

  test('one time dimension at a time; left-out fields are dropped; flags only where the role gives them', () => {
    let drafts = draftsOf(INFERRED, true);
    drafts = changeField(drafts, 'shippedAt', { role: 'time' });
    drafts = changeField(drafts, 'region', { role: 'omit' });
    drafts = changeField(drafts, 'amount', { label: 'Order amount' });
    expect(fieldsOf(drafts)).toEqual({
      amount: { type: 'number', label: 'Order amount', measure: true },
      placedAt: { type: 'date', label: 'Placed at' },
      shippedAt: { type: 'date', label: 'Shipped at', timeDimension: true },
    });
  });

  test('the roles offered are those the API allows each type', () => {
    expect(rolesFor('number')).toEqual(['measure', 'dimension', 'omit']);
    expect(rolesFor('date')).toEqual(['time', 'dimension', 'omit']);
    expect(rolesFor('string')).toEqual(['dimension', 'omit']);
  });

  test('labels from names, as the API labels inferred fields', () => {
    expect(labelOf('order_total')).toBe('Order total');
    expect(labelOf('orderTotal')).toBe('Order total');
  });
});

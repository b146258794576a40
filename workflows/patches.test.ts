import fs from 'node:fs';
import path from 'node:path';
import { overduePatches, PATCH_LIFETIME_DAYS, PATCHES, type Patch } from './patches';

const today = new Date().toISOString().slice(0, 10);

describe('workflow patches (docs/architecture.md, "Workflow patches")', () => {
  test('none is past its retirement date', () => {
    // An overdue patch keeps a branch no run takes any more: the message says which and what to do.
    expect(overduePatches(Object.values(PATCHES), today)).toEqual([]);
  });

  test('an overdue patch is named, with what to do', () => {
    const old: Patch = { id: 'old-patch', introduced: '2020-01-01', mayRetireAfter: '2021-03-31' };
    const [message] = overduePatches([old, PATCHES.typedValues], '2021-04-01');
    expect(message).toContain('"old-patch"');
    expect(message).toContain('2021-03-31');
    expect(message).toContain('deprecatePatch');
    expect(overduePatches([old], '2021-03-31')).toEqual([]);
  });

  test('none may retire before the lifetime since it came, and ids are unique', () => {
    for (const patch of Object.values(PATCHES)) {
      const days = (Date.parse(patch.mayRetireAfter) - Date.parse(patch.introduced)) / 86_400_000;
      expect([patch.id, days >= PATCH_LIFETIME_DAYS]).toEqual([patch.id, true]);
    }
    const ids = Object.values(PATCHES).map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test('every patched() call names a patch of the registry, and no id is spelled out elsewhere', () => {
    const dir = __dirname;
    const sources = fs.readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && f !== 'patches.ts');
    const ids = Object.values(PATCHES).map((p) => p.id);
    for (const file of sources) {
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      for (const call of text.match(/\bpatched\([^)]*\)/g) ?? []) expect([file, call]).toEqual([file, expect.stringMatching(/^patched\(PATCHES\.\w+\.id\)$/)]);
      for (const id of ids) expect([file, text.includes(`'${id}'`)]).toEqual([file, false]);
    }
  });
});

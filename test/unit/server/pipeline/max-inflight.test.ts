import { describe, expect, it } from 'vitest';
import { MaxInflight } from '../../../../server/pipeline/max-inflight.js';
import type { UserInfo } from '../../../../apimachinery/user.js';

const BOB: UserInfo = { name: 'bob', groups: ['system:authenticated'] };
const ADMIN: UserInfo = { name: 'admin', groups: ['system:masters', 'system:authenticated'] };

describe('MaxInflight', () => {
  it('refuses beyond each limit separately, and counts what it refuses', () => {
    const m = new MaxInflight({ readOnly: 2, mutating: 1 });
    const w1 = m.acquire('mutating', BOB);
    expect(w1).toBeTypeOf('function');
    expect(m.acquire('mutating', BOB)).toBeUndefined();
    // Reads have their own budget.
    const r1 = m.acquire('readOnly', BOB);
    const r2 = m.acquire('readOnly', undefined);
    expect(r1 && r2).toBeTypeOf('function');
    expect(m.acquire('readOnly', BOB)).toBeUndefined();
    expect(m.dropped).toEqual({ readOnly: 1, mutating: 1 });
    w1!();
    expect(m.acquire('mutating', BOB)).toBeTypeOf('function');
  });

  it('releases a slot once, however often the release runs', () => {
    const m = new MaxInflight({ readOnly: 1, mutating: 0 });
    const r = m.acquire('readOnly', BOB)!;
    r();
    r();
    const again = m.acquire('readOnly', BOB);
    expect(again).toBeTypeOf('function');
    expect(m.acquire('readOnly', BOB)).toBeUndefined();
  });

  it('always serves system:masters, beside the limit and without taking a slot', () => {
    const m = new MaxInflight({ readOnly: 1, mutating: 1 });
    const bob = m.acquire('mutating', BOB)!;
    const admin = m.acquire('mutating', ADMIN);
    expect(admin).toBeTypeOf('function');
    admin!();
    expect(m.acquire('mutating', BOB)).toBeUndefined(); // the admin's release freed nothing
    bob();
    expect(m.dropped.mutating).toBe(1);
  });

  it('0 means no limit', () => {
    const m = new MaxInflight({ readOnly: 0, mutating: 0 });
    for (let i = 0; i < 1000; i++) expect(m.acquire('mutating', BOB)).toBeTypeOf('function');
    expect(m.dropped).toEqual({ readOnly: 0, mutating: 0 });
  });
});

describe('MaxInflight with a saturated event loop', () => {
  it('refuses every counted request while saturated, still serving system:masters, and serves again after', () => {
    let saturated = true;
    const m = new MaxInflight({ readOnly: 10, mutating: 10 }, () => saturated);
    expect(m.acquire('mutating', BOB)).toBeUndefined();
    expect(m.acquire('readOnly', BOB)).toBeUndefined();
    expect(m.acquire('mutating', ADMIN)).toBeTypeOf('function');
    expect(m.dropped).toEqual({ readOnly: 1, mutating: 1 });
    saturated = false;
    expect(m.acquire('mutating', BOB)).toBeTypeOf('function');
  });
});

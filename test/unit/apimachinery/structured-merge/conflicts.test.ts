// SMD's merge/conflict_test.go, and kube's conflict message (managedfields/internal/conflict.go).
import { describe, expect, it } from 'vitest';
import {
  Conflicts,
  applyConflictCauses,
  applyConflictMessage,
  conflictsFromManagers,
  printManager,
  type Conflict,
} from '../../../../apimachinery/structured-merge/index.js';
import { KBF, NS, P } from './helpers.js';

const bobAndAlice = new Map([
  ['Bob', NS(P('key'), P('list', KBF('key', 'a', 'id', 2), 'id'))],
  ['Alice', NS(P('value'), P('list', KBF('key', 'a', 'id', 2), 'key'))],
]);

describe('SMD conflicts', () => {
  it('groups by sorted manager, paths in set order (TestNewFromSets)', () => {
    expect(new Conflicts(conflictsFromManagers(bobAndAlice)).message).toBe(
      'conflicts with "Alice":\n- .value\n- .list[id=2,key="a"].key\nconflicts with "Bob":\n- .key\n- .list[id=2,key="a"].id',
    );
  });

  it('collects every conflicting field (TestToSet)', () => {
    const set = new Conflicts(conflictsFromManagers(bobAndAlice)).toSet();
    expect(
      set.equals(
        NS(P('key'), P('value'), P('list', KBF('key', 'a', 'id', 2), 'id'), P('list', KBF('key', 'a', 'id', 2), 'key')),
      ),
    ).toBe(true);
  });

  it('prints deep paths (TestConflictsFromManagers)', () => {
    const c = conflictsFromManagers(
      new Map([
        [
          'Bob',
          NS(
            P('obj', 'template', 'obj', 'list', KBF('name', 'a'), 'id'),
            P('obj', 'template', 'obj', 'list', KBF('name', 'a'), 'key'),
          ),
        ],
      ]),
    );
    expect(new Conflicts(c).message).toBe(
      'conflicts with "Bob":\n- .obj.template.obj.list[name="a"].id\n- .obj.template.obj.list[name="a"].key',
    );
  });

  it('words a single conflict alone', () => {
    expect(new Conflicts([{ manager: 'Bob', path: P('spec', 'size') }]).message).toBe(
      'conflict with "Bob": .spec.size',
    );
  });
});

const kubectlUpdate = '{"manager":"kubectl","operation":"Update","apiVersion":"v1"}';
const controllerStatus =
  '{"manager":"controller","operation":"Update","apiVersion":"example.com/v1","subresource":"status"}';
const applier = '{"manager":"ci","operation":"Apply"}';

describe('kube conflict messages', () => {
  it.each<[string, string]>([
    [kubectlUpdate, '"kubectl" using v1'],
    [controllerStatus, '"controller" with subresource "status" using example.com/v1'],
    [applier, '"ci"'],
    ['{"manager":"ci","operation":"Apply","subresource":"scale"}', '"ci" with subresource "scale"'],
    [
      '{"manager":"m","operation":"Update","apiVersion":"v1","time":"2024-05-06T07:08:09.123Z"}',
      '"m" using v1 at 2024-05-06T07:08:09Z',
    ],
    ['not json', '"not json"'],
    ['"a string"', '"\\"a string\\""'],
    ['{"manager":"tab\\there","operation":"Apply"}', '"tab\\there"'],
  ])('printManager(%s)', (manager, text) => {
    expect(printManager(manager)).toBe(text);
  });

  it('takes an entry as well as an identifier', () => {
    expect(printManager({ manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1' })).toBe(
      '"kubectl" using apps/v1',
    );
  });

  it('words one conflict', () => {
    const conflicts: Conflict[] = [{ manager: kubectlUpdate, path: P('spec', 'size') }];
    expect(applyConflictMessage(conflicts)).toBe(
      'Apply failed with 1 conflict: conflict with "kubectl" using v1: .spec.size',
    );
    expect(applyConflictCauses(conflicts)).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "kubectl" using v1', field: '.spec.size' },
    ]);
  });

  it('words several conflicts, grouped by manager identifier', () => {
    const conflicts: Conflict[] = [
      { manager: kubectlUpdate, path: P('spec', 'a') },
      { manager: kubectlUpdate, path: P('spec', 'b') },
      { manager: controllerStatus, path: P('status', 'ready') },
    ];
    expect(applyConflictMessage(conflicts)).toBe(
      // Sorted by identifier: {"manager":"controller",...} before {"manager":"kubectl",...}.
      'Apply failed with 3 conflicts: conflicts with "controller" with subresource "status" using example.com/v1:\n- .status.ready\nconflicts with "kubectl" using v1:\n- .spec.a\n- .spec.b',
    );
    const causes = applyConflictCauses(conflicts);
    expect(causes.map((c) => c.field)).toEqual(['.spec.a', '.spec.b', '.status.ready']);
    expect(causes[2]!.message).toBe('conflict with "controller" with subresource "status" using example.com/v1');
  });
});

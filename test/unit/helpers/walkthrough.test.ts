// The walkthrough runner's reading of a README: which commands, where each ends, and which fail.
import { describe, expect, it } from 'vitest';
import { type Step, shBlockCommands, walkthroughSteps } from '../../helpers/walkthrough.js';

const fence = '```';

describe('shBlockCommands', () => {
  it.each<[string, string, { command: string; comment: string }[]]>([
    ['one line', 'kubectl get ns', [{ command: 'kubectl get ns', comment: '' }]],
    ['a trailing comment', 'make run   # on 6443', [{ command: 'make run   # on 6443', comment: 'on 6443' }]],
    ['blank and comment lines skipped', '\n# a note\nkubectl get ns\n', [{ command: 'kubectl get ns', comment: '' }]],
    ['a # inside quotes is no comment', "echo 'a # b' # c", [{ command: "echo 'a # b' # c", comment: 'c' }]],
    [
      'continued lines kept whole',
      'curl -H x \\\n  https://h/version\nnext',
      [
        { command: 'curl -H x \\\n  https://h/version', comment: '' },
        { command: 'next', comment: '' },
      ],
    ],
    [
      'a here-document kept whole, with # and blank lines in it',
      "cat > f <<'JS'\n# not a comment\n\nx\nJS\nnode f &",
      [
        { command: "cat > f <<'JS'\n# not a comment\n\nx\nJS", comment: '' },
        { command: 'node f &', comment: '' },
      ],
    ],
    [
      'an unquoted here-document',
      'kubectl apply -f - <<EOF\na: $(b)\nEOF',
      [{ command: 'kubectl apply -f - <<EOF\na: $(b)\nEOF', comment: '' }],
    ],
  ])('%s', (_name, block, want) => {
    expect(shBlockCommands(block)).toEqual(want);
  });

  it('refuses a here-document that never ends', () => {
    expect(() => shBlockCommands('cat <<EOF\nx')).toThrow('here-document EOF never ends');
  });
});

describe('walkthroughSteps', () => {
  it('reads sh and console blocks in order, under their headings, with what fails', () => {
    const md = [
      '# Top',
      `${fence}sh`,
      'kubectl scale x --replicas=11   # refused: too many',
      'kubectl auth can-i delete x     # no',
      'kubectl auth can-i get x        # yes',
      fence,
      '## Shown',
      `${fence}console`,
      '$ kubectl get x',
      'NAME   AGE',
      'x      0s',
      '$ kubectl apply -f bad.yaml',
      'Error from server (Forbidden): no',
      '$ kubectl apply -f invalid.yaml',
      'The widgets "m" is invalid: : denied',
      fence,
      `${fence}ts`,
      'not(run)',
      fence,
    ].join('\n');
    expect(
      walkthroughSteps(md).map((s: Step) => [s.section, s.command.split(' ').slice(0, 3).join(' '), s.fails, s.shown]),
    ).toEqual([
      ['Top', 'kubectl scale x', true, undefined],
      ['Top', 'kubectl auth can-i', true, undefined],
      ['Top', 'kubectl auth can-i', false, undefined],
      ['Shown', 'kubectl get x', false, 'NAME   AGE\nx      0s'],
      ['Shown', 'kubectl apply -f', true, 'Error from server (Forbidden): no'],
      ['Shown', 'kubectl apply -f', true, 'The widgets "m" is invalid: : denied'],
    ]);
  });
});

// Go's time.Parse(time.RFC3339, s) errors, as metav1.Time's UnmarshalJSON returns them and kube puts
// them in its 400 (time/format.go: parse, skip, getnum, ParseError.Error, quote).
import { describe, expect, it } from 'vitest';
import { goRFC3339ParseError } from '../../../../apimachinery/validation/go-time.js';
import { metaTimeDecodeError } from '../../../../apimachinery/validation/object-meta.js';

const LAYOUT = '"2006-01-02T15:04:05Z07:00"';
const cannot = (value: string, elem: string, layoutElem: string): string =>
  `parsing time "${value}" as ${LAYOUT}: cannot parse "${elem}" as "${layoutElem}"`;

describe('goRFC3339ParseError', () => {
  it.each([
    ['2024-01-02T03:04:05Z'],
    ['2024-01-02T03:04:05.123456789Z'],
    ['2024-01-02T03:04:05,5+01:00'],
    ['2024-02-29T23:59:59-24:00'], // a leap day; offsets up to 24 hours pass
    ['2024-01-02T3:04:05Z'], // the hour needs no leading zero
    ['0000-12-31T23:59:59Z'],
  ])('%s parses', (v) => {
    expect(goRFC3339ParseError(v)).toBeUndefined();
  });

  it.each([
    ['yesterday', cannot('yesterday', 'yesterday', '2006')],
    ['', cannot('', '', '2006')],
    ['20x4-01-02T03:04:05Z', cannot('20x4-01-02T03:04:05Z', '20x4-01-02T03:04:05Z', '2006')],
    ['2024/01/02', cannot('2024/01/02', '/01/02', '-')],
    ['2024-1-02T03:04:05Z', cannot('2024-1-02T03:04:05Z', '1-02T03:04:05Z', '01')],
    ['2024-01-02', cannot('2024-01-02', '', 'T')],
    ['2024-01-02 03:04:05Z', cannot('2024-01-02 03:04:05Z', ' 03:04:05Z', 'T')],
    ['2024-01-02t03:04:05z', cannot('2024-01-02t03:04:05z', 't03:04:05z', 'T')],
    ['2024-01-02T03:04:05', cannot('2024-01-02T03:04:05', '', 'Z07:00')],
    ['2024-01-02T03:04:05+0100', cannot('2024-01-02T03:04:05+0100', '+0100', 'Z07:00')],
    ['2024-01-02T03:04:05*01:00', cannot('2024-01-02T03:04:05*01:00', '*01:00', 'Z07:00')],
    ['2024-13-02T03:04:05Z', 'parsing time "2024-13-02T03:04:05Z": month out of range'],
    ['2023-02-29T03:04:05Z', 'parsing time "2023-02-29T03:04:05Z": day out of range'],
    ['2024-01-02T24:04:05Z', 'parsing time "2024-01-02T24:04:05Z": hour out of range'],
    ['2024-01-02T03:60:05Z', 'parsing time "2024-01-02T03:60:05Z": minute out of range'],
    ['2024-01-02T03:04:60Z', 'parsing time "2024-01-02T03:04:60Z": second out of range'],
    ['2024-00-02T03:04:05Z', 'parsing time "2024-00-02T03:04:05Z": month out of range'],
    ['2024-04-31T03:04:05Z', 'parsing time "2024-04-31T03:04:05Z": day out of range'],
    ['2024-01-00T03:04:05Z', 'parsing time "2024-01-00T03:04:05Z": day out of range'],
    [
      '２024-01-02T03:04:05Z',
      cannot('\\xef\\xbc\\x92024-01-02T03:04:05Z', '\\xef\\xbc\\x92024-01-02T03:04:05Z', '2006'),
    ],
    ['2024-01-02T03:04:05+25:61', 'parsing time "2024-01-02T03:04:05+25:61": time zone offset minute out of range'],
    ['2024-01-02T03:04:05Zjunk', 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'],
    ['2024-01-02T03:04:05Zé"', 'parsing time "2024-01-02T03:04:05Z\\xc3\\xa9\\"": extra text: "\\xc3\\xa9\\""'],
  ])('%s: %s', (v, want) => {
    expect(goRFC3339ParseError(v)).toBe(want);
  });
});

describe('metaTimeDecodeError', () => {
  it('reads creationTimestamp, deletionTimestamp, then managedFields[].time, as kube decodes them', () => {
    expect(
      metaTimeDecodeError({
        creationTimestamp: null,
        deletionTimestamp: '2024-01-02T03:04:05Z',
        managedFields: [{ time: null }],
      }),
    ).toBeUndefined();
    expect(metaTimeDecodeError({ managedFields: [{}, { time: 'x' }], deletionTimestamp: 5 })).toBe(
      'json: cannot unmarshal number into Go value of type string',
    );
    expect(metaTimeDecodeError({ managedFields: [{ time: 'x' }] })).toBe(cannot('x', 'x', '2006'));
    expect(metaTimeDecodeError({ creationTimestamp: {} })).toBe(
      'json: cannot unmarshal object into Go value of type string',
    );
    expect(metaTimeDecodeError({ creationTimestamp: [true] })).toBe(
      'json: cannot unmarshal array into Go value of type string',
    );
    expect(metaTimeDecodeError({ creationTimestamp: false })).toBe(
      'json: cannot unmarshal bool into Go value of type string',
    );
  });
});

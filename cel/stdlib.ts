// The standard library's declarations as cel-go's common/stdlib declares them, with its
// overload ids (common/overloads), in its order: the checked AST's reference map names
// these ids and the evaluator will bind them.
import { Operators } from './ast.js';
import {
  type FunctionDecl,
  func,
  memberOverload,
  type OverloadDecl,
  overload,
  type VariableDecl,
  typeVariable,
} from './decls.js';
import {
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  DynType,
  IntType,
  listType,
  mapType,
  NullType,
  StringType,
  TimestampType,
  type Type,
  TypeType,
  typeOf,
  typeParam,
  UintType,
} from './types.js';

const A = typeParam('A');
const B = typeParam('B');
const listOfA = listType(A);
const mapOfAB = mapType(A, B);

/** The type names usable as identifiers: `int`, `list`, `google.protobuf.Timestamp`, ... */
export const STANDARD_TYPES: readonly VariableDecl[] = [
  BoolType,
  BytesType,
  DoubleType,
  DurationType,
  IntType,
  listOfA,
  mapOfAB,
  NullType,
  StringType,
  TimestampType,
  TypeType,
  UintType,
].map(typeVariable);

/** The relational overloads, by id suffix and operand types; the cross-type ones are filtered unless enabled. */
const COMPARABLE: readonly [string, Type, Type][] = [
  ['bool', BoolType, BoolType],
  ['int64', IntType, IntType],
  ['int64_double', IntType, DoubleType],
  ['int64_uint64', IntType, UintType],
  ['uint64', UintType, UintType],
  ['uint64_double', UintType, DoubleType],
  ['uint64_int64', UintType, IntType],
  ['double', DoubleType, DoubleType],
  ['double_int64', DoubleType, IntType],
  ['double_uint64', DoubleType, UintType],
  ['string', StringType, StringType],
  ['bytes', BytesType, BytesType],
  ['timestamp', TimestampType, TimestampType],
  ['duration', DurationType, DurationType],
];

const relation = (name: string, prefix: string): FunctionDecl =>
  func(name, ...COMPARABLE.map(([suffix, l, r]) => overload(`${prefix}_${suffix}`, [l, r], BoolType)));

/** Ids of the relations between int, uint and double, which cel-go disables unless CrossTypeNumericComparisons. */
export const CROSS_TYPE_NUMERIC_OVERLOADS: ReadonlySet<string> = new Set(
  ['less', 'less_equals', 'greater', 'greater_equals'].flatMap((p) =>
    ['int64_double', 'int64_uint64', 'uint64_double', 'uint64_int64', 'double_int64', 'double_uint64'].map(
      (s) => `${p}_${s}`,
    ),
  ),
);

/** `name(T) -> result` for each [id, T]. */
const conversions = (name: string, result: Type, from: readonly [string, Type][]): FunctionDecl =>
  func(name, ...from.map(([id, t]) => overload(id, [t], result)));

/** A timestamp accessor: `ts.f()`, `ts.f(tz)`, and for some `d.f()` on durations. */
function timeAccessor(name: string, ts: string, tsTz: string, duration?: string): FunctionDecl {
  const overloads: OverloadDecl[] = [
    memberOverload(ts, [TimestampType], IntType),
    memberOverload(tsTz, [TimestampType, StringType], IntType),
  ];
  if (duration !== undefined) overloads.push(memberOverload(duration, [DurationType], IntType));
  return func(name, ...overloads);
}

const stringPredicate = (name: string, id: string): FunctionDecl =>
  func(name, memberOverload(id, [StringType, StringType], BoolType));

export const STANDARD_FUNCTIONS: readonly FunctionDecl[] = [
  func(Operators.conditional, overload('conditional', [BoolType, A, A], A)),
  func(Operators.logicalAnd, overload('logical_and', [BoolType, BoolType], BoolType)),
  func(Operators.logicalOr, overload('logical_or', [BoolType, BoolType], BoolType)),
  func(Operators.logicalNot, overload('logical_not', [BoolType], BoolType)),
  func(Operators.notStrictlyFalse, overload('not_strictly_false', [BoolType], BoolType)),
  func(Operators.equals, overload('equals', [A, A], BoolType)),
  func(Operators.notEquals, overload('not_equals', [A, A], BoolType)),
  func(
    Operators.add,
    overload('add_bytes', [BytesType, BytesType], BytesType),
    overload('add_double', [DoubleType, DoubleType], DoubleType),
    overload('add_duration_duration', [DurationType, DurationType], DurationType),
    overload('add_duration_timestamp', [DurationType, TimestampType], TimestampType),
    overload('add_timestamp_duration', [TimestampType, DurationType], TimestampType),
    overload('add_int64', [IntType, IntType], IntType),
    overload('add_list', [listOfA, listOfA], listOfA),
    overload('add_string', [StringType, StringType], StringType),
    overload('add_uint64', [UintType, UintType], UintType),
  ),
  func(
    Operators.divide,
    overload('divide_double', [DoubleType, DoubleType], DoubleType),
    overload('divide_int64', [IntType, IntType], IntType),
    overload('divide_uint64', [UintType, UintType], UintType),
  ),
  func(
    Operators.modulo,
    overload('modulo_int64', [IntType, IntType], IntType),
    overload('modulo_uint64', [UintType, UintType], UintType),
  ),
  func(
    Operators.multiply,
    overload('multiply_double', [DoubleType, DoubleType], DoubleType),
    overload('multiply_int64', [IntType, IntType], IntType),
    overload('multiply_uint64', [UintType, UintType], UintType),
  ),
  func(
    Operators.negate,
    overload('negate_double', [DoubleType], DoubleType),
    overload('negate_int64', [IntType], IntType),
  ),
  func(
    Operators.subtract,
    overload('subtract_double', [DoubleType, DoubleType], DoubleType),
    overload('subtract_duration_duration', [DurationType, DurationType], DurationType),
    overload('subtract_int64', [IntType, IntType], IntType),
    overload('subtract_timestamp_duration', [TimestampType, DurationType], TimestampType),
    overload('subtract_timestamp_timestamp', [TimestampType, TimestampType], DurationType),
    overload('subtract_uint64', [UintType, UintType], UintType),
  ),
  relation(Operators.less, 'less'),
  relation(Operators.lessEquals, 'less_equals'),
  relation(Operators.greater, 'greater'),
  relation(Operators.greaterEquals, 'greater_equals'),
  func(Operators.index, overload('index_list', [listOfA, IntType], A), overload('index_map', [mapOfAB, A], B)),
  func(Operators.in, overload('in_list', [A, listOfA], BoolType), overload('in_map', [A, mapOfAB], BoolType)),
  func(
    'size',
    overload('size_bytes', [BytesType], IntType),
    memberOverload('bytes_size', [BytesType], IntType),
    overload('size_list', [listOfA], IntType),
    memberOverload('list_size', [listOfA], IntType),
    overload('size_map', [mapOfAB], IntType),
    memberOverload('map_size', [mapOfAB], IntType),
    overload('size_string', [StringType], IntType),
    memberOverload('string_size', [StringType], IntType),
  ),
  func('type', overload('type', [A], typeOf(A))),
  conversions('bool', BoolType, [
    ['bool_to_bool', BoolType],
    ['string_to_bool', StringType],
  ]),
  conversions('bytes', BytesType, [
    ['bytes_to_bytes', BytesType],
    ['string_to_bytes', StringType],
  ]),
  conversions('double', DoubleType, [
    ['double_to_double', DoubleType],
    ['int64_to_double', IntType],
    ['string_to_double', StringType],
    ['uint64_to_double', UintType],
  ]),
  conversions('duration', DurationType, [
    ['duration_to_duration', DurationType],
    ['string_to_duration', StringType],
  ]),
  func('dyn', overload('to_dyn', [A], DynType)),
  conversions('int', IntType, [
    ['int64_to_int64', IntType],
    ['double_to_int64', DoubleType],
    ['duration_to_int64', DurationType],
    ['string_to_int64', StringType],
    ['timestamp_to_int64', TimestampType],
    ['uint64_to_int64', UintType],
  ]),
  conversions('string', StringType, [
    ['string_to_string', StringType],
    ['bool_to_string', BoolType],
    ['bytes_to_string', BytesType],
    ['double_to_string', DoubleType],
    ['duration_to_string', DurationType],
    ['int64_to_string', IntType],
    ['timestamp_to_string', TimestampType],
    ['uint64_to_string', UintType],
  ]),
  conversions('timestamp', TimestampType, [
    ['timestamp_to_timestamp', TimestampType],
    ['int64_to_timestamp', IntType],
    ['string_to_timestamp', StringType],
  ]),
  conversions('uint', UintType, [
    ['uint64_to_uint64', UintType],
    ['double_to_uint64', DoubleType],
    ['int64_to_uint64', IntType],
    ['string_to_uint64', StringType],
  ]),
  stringPredicate('contains', 'contains_string'),
  stringPredicate('endsWith', 'ends_with_string'),
  stringPredicate('startsWith', 'starts_with_string'),
  func(
    'matches',
    overload('matches', [StringType, StringType], BoolType),
    memberOverload('matches_string', [StringType, StringType], BoolType),
  ),
  timeAccessor('getFullYear', 'timestamp_to_year', 'timestamp_to_year_with_tz'),
  timeAccessor('getMonth', 'timestamp_to_month', 'timestamp_to_month_with_tz'),
  timeAccessor('getDayOfYear', 'timestamp_to_day_of_year', 'timestamp_to_day_of_year_with_tz'),
  timeAccessor('getDayOfMonth', 'timestamp_to_day_of_month', 'timestamp_to_day_of_month_with_tz'),
  timeAccessor('getDate', 'timestamp_to_day_of_month_1_based', 'timestamp_to_day_of_month_1_based_with_tz'),
  timeAccessor('getDayOfWeek', 'timestamp_to_day_of_week', 'timestamp_to_day_of_week_with_tz'),
  timeAccessor('getHours', 'timestamp_to_hours', 'timestamp_to_hours_with_tz', 'duration_to_hours'),
  timeAccessor('getMinutes', 'timestamp_to_minutes', 'timestamp_to_minutes_with_tz', 'duration_to_minutes'),
  timeAccessor('getSeconds', 'timestamp_to_seconds', 'timestamp_to_seconds_tz', 'duration_to_seconds'),
  timeAccessor(
    'getMilliseconds',
    'timestamp_to_milliseconds',
    'timestamp_to_milliseconds_with_tz',
    'duration_to_milliseconds',
  ),
];

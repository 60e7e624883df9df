// The cel-spec conformance tests set aside: the failures we know of, each by its exact name
// (TestResult.id: section/name) with its reason (REASONS in cel-spec.ts says what each means and
// which ones the second figure leaves out). cel-spec.test.ts fails on a failing test that is not
// here, and prints the ones here that pass again. Generated, then reviewed; to regenerate:
//
//   npx vite-node test/conformance/cel-conformance.ts -- --write-set-aside
//
// which keeps each listed reason, drops what passes now, and adds new failures as UNREVIEWED
// (not a reason: write the right one, after checking the failure is not a regression). Each
// entry's comment is the expression and what the run got, for the reviewer.
import type { SetAside } from './cel-spec.js';

export const SET_ASIDE: readonly SetAside[] = [
  // kube-format: 18 (kube: format() is cel-go's original formatter (kube pins ext.Strings version 2): lists/maps as CEL literals, %d of integers only, %f/%e through the en_US printer (∞, × 10ⁿ))
  // "%.6e".format([1052.032911275]) -- got {"k":"string","v":"1.052033 × 10⁰³"}, want {"k":"string","v":"1.052033e+03"}
  { name: 'string_ext/format/scientific notation formatting clause', reason: 'kube-format' },
  // "%e".format([2.71828]) -- got {"k":"string","v":"2.718280 × 10⁰⁰"}, want {"k":"string","v":"2.718280e+00"}
  { name: 'string_ext/format/default precision for scientific notation', reason: 'kube-format' },
  // "%e".format([double("NaN")]) -- got {"k":"string","v":"   NaN"}, want {"k":"string","v":"NaN"}
  { name: 'string_ext/format/NaN support for scientific notation', reason: 'kube-format' },
  // "%e".format([double("Infinity")]) -- got {"k":"string","v":"     ∞"}, want {"k":"string","v":"Infinity"}
  { name: 'string_ext/format/positive infinity support for scientific notation', reason: 'kube-format' },
  // "%e".format([double("-Infinity")]) -- got {"k":"string","v":"    -∞"}, want {"k":"string","v":"-Infinity"}
  { name: 'string_ext/format/negative infinity support for scientific notation', reason: 'kube-format' },
  // "%d".format([double("NaN")]) -- error: error during formatting: decimal clause can only be used on integers, was given double
  { name: 'string_ext/format/NaN support for decimal', reason: 'kube-format' },
  // "%d".format([double("Infinity")]) -- error: error during formatting: decimal clause can only be used on integers, was given double
  { name: 'string_ext/format/positive infinity support for decimal', reason: 'kube-format' },
  // "%d".format([double("-Infinity")]) -- error: error during formatting: decimal clause can only be used on integers, was given double
  { name: 'string_ext/format/negative infinity support for decimal', reason: 'kube-format' },
  // "%f".format([double("Infinity")]) -- got {"k":"string","v":"∞"}, want {"k":"string","v":"Infinity"}
  { name: 'string_ext/format/positive infinity support for fixed-point', reason: 'kube-format' },
  // "%f".format([double("-Infinity")]) -- got {"k":"string","v":"-∞"}, want {"k":"string","v":"-Infinity"}
  { name: 'string_ext/format/negative infinity support for fixed-point', reason: 'kube-format' },
  // "%s".format([["abc", 3.14, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]]) -- got {"k":"string","v":"[\"abc\", 3.140000, null, [9, 8, 7, 6], timesta...
  { name: 'string_ext/format/list support for string', reason: 'kube-format' },
  // "%s".format([{"key1": b"xyz", "key5": null, "key2": duration("2h"), "key4": true, "key3": 2.71828}]) -- got {"k":"string","v":"{\"key1\":b\"xyz\", \"key2\":d...
  { name: 'string_ext/format/map support for string', reason: 'kube-format' },
  // "%s".format([{1: "value1", uint(2): "value2", true: double("NaN")}]) -- got {"k":"string","v":"{\"1\":\"value1\", \"2\":\"value2\", \"true\":\"NaN\"}"}, want...
  { name: 'string_ext/format/map support (all key types)', reason: 'kube-format' },
  // "%e".format([dyn(2.71828)]) -- got {"k":"string","v":"2.718280 × 10⁰⁰"}, want {"k":"string","v":"2.718280e+00"}
  { name: 'string_ext/format/dyntype support for scientific notation', reason: 'kube-format' },
  // "%s".format([[double("NaN"), double("Infinity"), double("-Infinity")]]) -- got {"k":"string","v":"[\"NaN\", \"+Inf\", \"-Inf\"]"}, want {"k":"string","v":"[N...
  { name: 'string_ext/format/dyntype NaN/infinity support', reason: 'kube-format' },
  // "%s".format([dyn([6, 4.2, "a string"])]) -- got {"k":"string","v":"[6, 4.200000, \"a string\"]"}, want {"k":"string","v":"[6, 4.2, a string]"}
  { name: 'string_ext/format/dyntype support for lists', reason: 'kube-format' },
  // "%s".format([{"strKey":"x", 6:duration("422s"), true:42}]) -- got {"k":"string","v":"{\"6\":duration(\"422s\"), \"strKey\":\"x\", \"true\":42}"}, want {"k":"...
  { name: 'string_ext/format/dyntype support for maps', reason: 'kube-format' },
  // str_var.format([1052.032911275]) -- got {"k":"string","v":"1.052033 × 10⁰³"}, want {"k":"string","v":"1.052033e+03"}
  { name: 'string_ext/format/scientific notation formatting clause in a string variable', reason: 'kube-format' },
  // kube-duration-milliseconds: 1 (kube: duration.getMilliseconds() is the total, as cel-go (the spec: the part below the second))
  // x.getMilliseconds() -- got {"k":"int","v":"123321n"}, want {"k":"int","v":"321n"}
  { name: 'timestamps/duration_converters/get_milliseconds', reason: 'kube-duration-milliseconds' },
  // kube-quoted-fields: 6 (kube: backtick-quoted field names are opt-in in cel-go and kube does not enable them)
  // {'/api/v1': true, '/api/v2': false}.`/api/v1` -- error: Unexpected character: `
  { name: 'fields/quoted_map_fields/field_access_slash', reason: 'kube-quoted-fields' },
  // {'content-type': 'application/json', 'content-length': 145}.`content-type` == 'application/json' -- error: Unexpected character: `
  { name: 'fields/quoted_map_fields/field_access_dash', reason: 'kube-quoted-fields' },
  // {'foo.txt': 32, 'bar.csv': 1024}.`foo.txt` -- error: Unexpected character: `
  { name: 'fields/quoted_map_fields/field_access_dot', reason: 'kube-quoted-fields' },
  // has({'/api/v1': true, '/api/v2': false}.`/api/v3`) -- error: Unexpected character: `
  { name: 'fields/quoted_map_fields/has_field_slash', reason: 'kube-quoted-fields' },
  // has({'content-type': 'application/json', 'content-length': 145}.`content-type`) -- error: Unexpected character: `
  { name: 'fields/quoted_map_fields/has_field_dash', reason: 'kube-quoted-fields' },
  // has({'foo.txt': 32, 'bar.csv': 1024}.`foo.txt`) -- error: Unexpected character: `
  { name: 'fields/quoted_map_fields/has_field_dot', reason: 'kube-quoted-fields' },
  // unchecked: 28 (evaluation without a type check: unbound names as runtime errors, non-bool || and && operands, mixed-type ?: branches, dotted variable names)
  // x || true -- error: Unknown variable: x
  { name: 'basic/variables/unbound_is_runtime_error', reason: 'unchecked' },
  // f_unknown(17) || true -- error: found no matching overload for 'f_unknown(int)'
  { name: 'basic/functions/unbound_is_runtime_error', reason: 'unchecked' },
  // a.b.c -- error: Unknown variable: a
  { name: 'fields/qualified_identifier_resolution/qualified_ident', reason: 'unchecked' },
  // a.b.c -- error: Unknown variable: a
  { name: 'fields/qualified_identifier_resolution/map_field_select', reason: 'unchecked' },
  // a.b.c -- error: Unknown variable: a
  { name: 'fields/qualified_identifier_resolution/qualified_identifier_resolution_unchecked', reason: 'unchecked' },
  // a.b.c -- error: Unknown variable: a
  { name: 'fields/qualified_identifier_resolution/ident_with_longest_prefix_check', reason: 'unchecked' },
  // true ? 'cows' : 17 -- error: Ternary branches must have the same type, got 'string' and 'int'
  { name: 'logic/conditional/mixed_type', reason: 'unchecked' },
  // false && 32 -- error: Logical operator requires bool operands, got 'int'
  { name: 'logic/AND/short_circuit_type_left', reason: 'unchecked' },
  // 'horses' && false -- error: Logical operator requires bool operands, got 'string'
  { name: 'logic/AND/short_circuit_type_right', reason: 'unchecked' },
  // true || 32 -- error: Logical operator requires bool operands, got 'int'
  { name: 'logic/OR/short_circuit_type_left', reason: 'unchecked' },
  // 'horses' || true -- error: Logical operator requires bool operands, got 'string'
  { name: 'logic/OR/short_circuit_type_right', reason: 'unchecked' },
  // a.as() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/as', reason: 'unchecked' },
  // a.break() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/break', reason: 'unchecked' },
  // a.const() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/const', reason: 'unchecked' },
  // a.continue() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/continue', reason: 'unchecked' },
  // a.else() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/else', reason: 'unchecked' },
  // a.for() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/for', reason: 'unchecked' },
  // a.function() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/function', reason: 'unchecked' },
  // a.if() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/if', reason: 'unchecked' },
  // a.import() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/import', reason: 'unchecked' },
  // a.let() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/let', reason: 'unchecked' },
  // a.loop() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/loop', reason: 'unchecked' },
  // a.package() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/package', reason: 'unchecked' },
  // a.namespace() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/namespace', reason: 'unchecked' },
  // a.return() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/return', reason: 'unchecked' },
  // a.var() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/var', reason: 'unchecked' },
  // a.void() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/void', reason: 'unchecked' },
  // a.while() || true -- error: Unknown variable: a
  { name: 'parse/receiver_function_names/while', reason: 'unchecked' },
  // engine-parser: 18 (engine parser: [?x] and {?k: v} optional entries, raw bytes literals (br'..'), non-ASCII bytes literals, `.99`)
  // b'ÿ' -- got {"k":"bytes","v":"ff"}, want {"k":"bytes","v":"c3bf"}
  { name: 'basic/self_eval_nonzeroish/self_eval_bytes_escape', reason: 'engine-parser' },
  // b'ÿ' == b'\303\277' -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'comparisons/eq_literal/eq_bytes', reason: 'engine-parser' },
  // b'\303\277' != b'ÿ' -- got {"k":"bool","v":true}, want {"k":"bool","v":false}
  { name: 'comparisons/ne_literal/not_ne_bytes', reason: 'engine-parser' },
  // .99 > 9.9e-1 -- error: Unexpected token: DOT
  { name: 'comparisons/gt_literal/not_gt_double', reason: 'engine-parser' },
  // {?'nested_map': optional.ofNonZeroValue({?'map': {'c': {'dashed-index': 'goodbye'}}.?c})} -- error: Unexpected token: QUESTION
  { name: 'optionals/optionals/optional_chaining_12', reason: 'engine-parser' },
  // {?'nested_map': optional.ofNonZeroValue({?'map': {}.?c}), 'singleton': true} -- error: Unexpected token: QUESTION
  { name: 'optionals/optionals/optional_chaining_13', reason: 'engine-parser' },
  // [?{}.?c, ?optional.of(42), ?optional.none()] -- error: Unexpected token: QUESTION
  { name: 'optionals/optionals/optional_chaining_14', reason: 'engine-parser' },
  // [?optional.ofNonZeroValue({'c': []}.?c.orValue(dyn({})))] -- error: Unexpected token: QUESTION
  { name: 'optionals/optionals/optional_chaining_15', reason: 'engine-parser' },
  // optional.ofNonZeroValue({?'nested_map': optional.ofNonZeroValue({?'map': optional.of({}).?c})}).hasValue() -- error: Unexpected token: QUESTION
  { name: 'optionals/optionals/optional_chaining_16', reason: 'engine-parser' },
  // has({?'foo': optional.none()}.foo) -- error: Unexpected token: QUESTION
  { name: 'optionals/optionals/map_optional_entry_has', reason: 'engine-parser' },
  // br' \\ \? \" \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 ' -- error: Unexpected character: '''
  { name: 'parse/bytes_literals/raw_single_quoted_escapes', reason: 'engine-parser' },
  // br" \\ \? \' \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 " -- error: Unexpected character: '"'
  { name: 'parse/bytes_literals/raw_double_quoted_escapes', reason: 'engine-parser' },
  // br''' \\ \? \" \' \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 ''' -- error: Unexpected character: '''
  { name: 'parse/bytes_literals/raw_triple_single_quoted_escapes', reason: 'engine-parser' },
  // br""" \\ \? \" \' \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 """ -- error: Unexpected character: '"'
  { name: 'parse/bytes_literals/raw_triple_double_quoted_escapes', reason: 'engine-parser' },
  // bR' \\ \? \" \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 ' -- error: Unexpected character: '''
  { name: 'parse/bytes_literals/upper_raw_single_quoted_escapes', reason: 'engine-parser' },
  // bR" \\ \? \' \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 " -- error: Unexpected character: '"'
  { name: 'parse/bytes_literals/upper_raw_double_quoted_escapes', reason: 'engine-parser' },
  // bR''' \\ \? \" \' \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 ''' -- error: Unexpected character: '''
  { name: 'parse/bytes_literals/upper_raw_triple_single_quoted_escapes', reason: 'engine-parser' },
  // bR""" \\ \? \" \' \` \a \b \f \t \v \n \r \000 \x00 \X00 \u0000 \U00000000 """ -- error: Unexpected character: '"'
  { name: 'parse/bytes_literals/upper_raw_triple_double_quoted_escapes', reason: 'engine-parser' },
  // engine-has-optionals: 16 (engine: has() of a literal or through an optional, optional selection on optional.none() or an empty literal, type(optional))
  // has({'a': 1, 'b': 2}.a) -- error: has() invalid argument
  { name: 'fields/map_has/has', reason: 'engine-has-optionals' },
  // has({'a': 1, 'b': 2}.c) -- error: has() invalid argument
  { name: 'fields/map_has/has_not', reason: 'engine-has-optionals' },
  // has({}.a) -- error: has() invalid argument
  { name: 'fields/map_has/has_empty', reason: 'engine-has-optionals' },
  // {'null_key': dyn(null)}.?null_key.invalid.hasValue() -- expected an error, got {"k":"bool","v":false}
  { name: 'optionals/optionals/map_null_entry_no_such_key', reason: 'engine-has-optionals' },
  // {true: dyn(0)}[?true].absent.hasValue() -- expected an error, got {"k":"bool","v":false}
  { name: 'optionals/optionals/map_present_key_invalid_field', reason: 'engine-has-optionals' },
  // {}.?null_key.invalid.hasValue() -- error: Cannot index type 'undefined'
  { name: 'optionals/optionals/map_undefined_entry_hasValue', reason: 'engine-has-optionals' },
  // (has({}.x) ? optional.of({}.x) : optional.none()).hasValue() -- error: has() invalid argument
  { name: 'optionals/optionals/ternary_optional_hasValue', reason: 'engine-has-optionals' },
  // has({}.?x.y) -- error: has() invalid argument
  { name: 'optionals/optionals/has_map_optindex', reason: 'engine-has-optionals' },
  // has({'x': {'y': 'z'}}.?x.y) -- error: has() invalid argument
  { name: 'optionals/optionals/has_map_optindex_field', reason: 'engine-has-optionals' },
  // type(optional.none()) == optional_type -- error: found no matching overload for 'type(optional<dyn>)'
  { name: 'optionals/optionals/type', reason: 'engine-has-optionals' },
  // optional.of({'c': {}}).c.missing.or(optional.none()[0]).orValue('default value') -- error: Cannot index type 'undefined'
  { name: 'optionals/optionals/optional_chaining_5', reason: 'engine-has-optionals' },
  // has(optional.of({'c': {'entry': 'hello world'}}).c) && !has(optional.of({'c': {'entry': 'hello world'}}).c.missing) -- error: has() invalid argument
  { name: 'optionals/optionals/optional_chaining_9', reason: 'engine-has-optionals' },
  // optional.none().?repeated_string.hasValue() -- error: Cannot index type 'undefined'
  { name: 'optionals/optionals/optional_none_optselect_hasValue', reason: 'engine-has-optionals' },
  // optional.none()[?0].hasValue() -- error: Cannot index type 'undefined'
  { name: 'optionals/optionals/optional_none_optindex_hasValue', reason: 'engine-has-optionals' },
  // has({'foo': optional.none()}.foo) -- error: has() invalid argument
  { name: 'optionals/optionals/map_optional_has', reason: 'engine-has-optionals' },
  // has({'foo': optional.none()}.foo.bar) -- error: has() invalid argument
  { name: 'optionals/optionals/map_optional_select_has', reason: 'engine-has-optionals' },
  // engine-cross-type-numbers: 15 (engine: cross-type numbers (1.0 == 1, 2u != 2, [1] == [1.0], dyn(3u) in [3], int64 against a double near 2^63, a uint list index))
  // [1.0, 2.0, 3] == [1u, 2, 3u] -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'comparisons/eq_literal/eq_list_mixed_type_numbers', reason: 'engine-cross-type-numbers' },
  // ['one'] == [2, 3] -- error: no such overload: list<string> == list<int>
  { name: 'comparisons/eq_literal/not_eq_list_length', reason: 'engine-cross-type-numbers' },
  // {1: 1.0, 2u: 3u} == {1u: 1, 2: 3.0} -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'comparisons/eq_literal/eq_map_mixed_type_numbers', reason: 'engine-cross-type-numbers' },
  // 1.0 == 1 -- error: no such overload: double == int
  { name: 'comparisons/eq_literal/eq_mixed_types', reason: 'engine-cross-type-numbers' },
  // [1] == [1.0] -- error: no such overload: list<int> == list<double>
  { name: 'comparisons/eq_literal/eq_list_elem_mixed_types', reason: 'engine-cross-type-numbers' },
  // 2u != 2 -- error: no such overload: uint != int
  { name: 'comparisons/ne_literal/ne_mixed_types', reason: 'engine-cross-type-numbers' },
  // dyn(9223372036854775807) < 9223372036854775808.0 -- got {"k":"bool","v":true}, want {"k":"bool","v":false}
  { name: 'comparisons/lt_literal/not_lt_dyn_int_big_lossy_double', reason: 'engine-cross-type-numbers' },
  // dyn(9223372036854775808.0) > 9223372036854775807 -- got {"k":"bool","v":true}, want {"k":"bool","v":false}
  { name: 'comparisons/gt_literal/not_gt_dyn_big_double_int', reason: 'engine-cross-type-numbers' },
  // dyn(9223372036854775808.0) <= 9223372036854775807 -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'comparisons/lte_literal/lte_dyn_big_double_int', reason: 'engine-cross-type-numbers' },
  // dyn(9223372036854775807) >= 9223372036854775808.0 -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'comparisons/gte_literal/gte_dyn_int_big_lossy_double', reason: 'engine-cross-type-numbers' },
  // [7, 8, 9][dyn(0u)] -- error: No such key: 0
  { name: 'lists/index/zero_based_uint', reason: 'engine-cross-type-numbers' },
  // dyn(3u) in [5, 4, 3, 2, 1] -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'lists/in/uint_in_ints', reason: 'engine-cross-type-numbers' },
  // dyn(3u) in [5.0, 4.0, 3.0, 2.0, 1.0] -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'lists/in/uint_in_doubles', reason: 'engine-cross-type-numbers' },
  // dyn(3) in [5u, 4u, 3u, 2u, 1u] -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'lists/in/int_in_uints', reason: 'engine-cross-type-numbers' },
  // dyn(3.0) in [5u, 4u, 3u, 2u, 1u] -- got {"k":"bool","v":false}, want {"k":"bool","v":true}
  { name: 'lists/in/double_in_uints', reason: 'engine-cross-type-numbers' },
  // engine-map-keys: 4 (engine: map literals with duplicate, null or double keys are accepted)
  // {3.3:15.15, 1.0: 5}[1.0] -- expected an error, got {"k":"int","v":"5n"}
  { name: 'fields/qualified_identifier_resolution/map_key_float', reason: 'engine-map-keys' },
  // {null:false}[null] -- expected an error, got {"k":"bool","v":false}
  { name: 'fields/qualified_identifier_resolution/map_key_null', reason: 'engine-map-keys' },
  // {true:1,false:2,true:3}[true] -- expected an error, got {"k":"int","v":"3n"}
  { name: 'fields/qualified_identifier_resolution/map_value_repeat_key', reason: 'engine-map-keys' },
  // {0: 1, 0u: 2}[0.0] -- expected an error, got {"k":"int","v":"2n"}
  { name: 'fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous', reason: 'engine-map-keys' },
  // engine-timestamps: 4 (engine: timestamps are JS Dates (millisecond precision), duration + timestamp)
  // string(timestamp('9999-12-31T23:59:59.999999999Z')) -- got {"k":"string","v":"9999-12-31T23:59:59.999Z"}, want {"k":"string","v":"9999-12-31T23:59:59.9999999...
  { name: 'timestamps/timestamp_conversions/toString_timestamp_nanos', reason: 'engine-timestamps' },
  // duration('120s') + timestamp('2009-02-13T23:01:00Z') == timestamp('2009-02-13T23:03:00Z') -- error: no such overload: google.protobuf.Duration == google.prot...
  { name: 'timestamps/timestamp_arithmetic/add_time_to_duration', reason: 'engine-timestamps' },
  // timestamp('0001-01-01T00:00:01.999999999Z') + duration('999999999ns') == timestamp('0001-01-01T00:00:02.999999998Z') -- got {"k":"bool","v":false}, want {"k"...
  { name: 'timestamps/timestamp_arithmetic/add_time_to_duration_nanos_positive', reason: 'engine-timestamps' },
  // timestamp('9999-12-31T23:59:59.999999999Z') + duration('1ns') -- expected an error, got {"k":"timestamp","s":"253402300799n","n":999000000}
  { name: 'timestamps/timestamp_range/add_duration_nanos_over', reason: 'engine-timestamps' },
  // engine-other: 3 (other engine gaps: string(bytes) of invalid UTF-8, [].all(e, e > 0) overload clash, exists_one over a map literal)
  // string(b'\000\xff') -- expected an error, got {"k":"string","v":"\u0000�"}
  { name: 'conversions/string/bytes_invalid', reason: 'engine-other' },
  // [].all(e, e > 0) -- error: Operator overload 'int > int: bool' overlaps with 'double > int: bool'.
  { name: 'macros/all/list_empty', reason: 'engine-other' },
  // {6: 'six', 7: 'seven', 8: 'eight'}.exists_one(foo, foo % 5 == 2) -- error: Variable 'foo' is not of type 'int', got 'string'
  { name: 'macros/exists_one/map_one', reason: 'engine-other' },
];

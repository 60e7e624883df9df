// The optional library's declarations (cel-go cel/library.go, optionalLib): the
// `optional_type` type, optional.of/none/ofNonZeroValue, hasValue, value, or, orValue, and the
// calls the parser makes of `.?field` (`_?._`) and `[?i]` (`_[?_]`), plus indexing into an
// optional list or map. The optMap/optFlatMap macros are the parser's (macros.ts).
import { Operators } from './ast.js';
import { type FunctionDecl, func, memberOverload, overload, type VariableDecl, variable } from './decls.js';
import { BoolType, DynType, IntType, listType, mapType, optionalType, StringType, typeOf, typeParam } from './types.js';

const K = typeParam('K');
const V = typeParam('V');
const optV = optionalType(V);
const listV = listType(V);
const mapKV = mapType(K, V);

/** `optional_type` as an identifier, as registering types.OptionalType declares it. */
export const OPTIONAL_TYPES: readonly VariableDecl[] = [
  variable('optional_type', typeOf(optionalType(typeParam('T')))),
];

export const OPTIONAL_FUNCTIONS: readonly FunctionDecl[] = [
  func('optional.of', overload('optional_of', [V], optV)),
  func('optional.ofNonZeroValue', overload('optional_ofNonZeroValue', [V], optV)),
  func('optional.none', overload('optional_none', [], optV)),
  func('value', memberOverload('optional_value', [optV], V)),
  func('hasValue', memberOverload('optional_hasValue', [optV], BoolType)),
  func('or', memberOverload('optional_or_optional', [optV, optV], optV)),
  func('orValue', memberOverload('optional_orValue_value', [optV, V], V)),
  func(Operators.optSelect, overload('select_optional_field', [DynType, StringType], optV)),
  func(
    Operators.optIndex,
    overload('list_optindex_optional_int', [listV, IntType], optV),
    overload('optional_list_optindex_optional_int', [optionalType(listV), IntType], optV),
    overload('map_optindex_optional_value', [mapKV, K], optV),
    overload('optional_map_optindex_optional_value', [optionalType(mapKV), K], optV),
  ),
  func(
    Operators.index,
    overload('optional_list_index_int', [optionalType(listV), IntType], optV),
    overload('optional_map_index_value', [optionalType(mapKV), K], optV),
  ),
];

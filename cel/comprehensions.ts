// The function ext.TwoVarComprehensions declares for its macros (cel-go ext/comprehensions.go):
// transformMap and transformMapEntry expand to loops that build their map with
// `cel.@mapInsert`, which no expression can name (`@` is not an identifier character).
import { type FunctionDecl, func, overload } from './decls.js';
import { mapType, typeParam } from './types.js';

const mapKV = mapType(typeParam('K'), typeParam('V'));

export const TWO_VAR_COMPREHENSION_FUNCTIONS: readonly FunctionDecl[] = [
  func(
    'cel.@mapInsert',
    overload('@mapInsert_map_key_value', [mapKV, typeParam('K'), typeParam('V')], mapKV),
    overload('@mapInsert_map_map', [mapKV, mapKV], mapKV),
  ),
];

// Applications translated from k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go:
// customStrategicMergePatchTestCaseData, customStrategicMergePatchRawTestCases,
// createStrategicMergePatchTestCaseData and strategicMergePatchRawTestCases. Each two-way case
// applies `twoWay` to `original` (giving `modified`, or `twoWayResult`); each three-way case
// applies `threeWay` to `current` (giving `result`). The expected documents are kube's (as of
// k8s.io/apimachinery v0.36: a `$patch: delete` removes every copy; a delete list never adds), list
// order included.
import { describe, expect, it } from 'vitest';
import { strategicMergeMapPatch } from '../../../../apimachinery/strategic-merge/merge.js';
import { MERGE_ITEM, loadCases } from './fixtures.js';

const CASES = loadCases(`
# customStrategicMergePatchTestCaseData
- description: unique scalars when merging lists
  original: {mergingIntList: [1, 2]}
  patch: {mergingIntList: [2, 3]}
  result: {mergingIntList: [1, 2, 3]}
- description: delete map from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  patch: {simpleMap: {$patch: delete}}
  result: {simpleMap: {}}
- description: delete all items from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  patch: {mergingList: [{$patch: replace}]}
  result: {mergingList: []}
- description: merge empty merging lists
  original: {mergingList: []}
  patch: {mergingList: []}
  result: {mergingList: []}
- description: delete all keys from map
  original: {name: 1, value: 1}
  patch: {$patch: replace}
  result: {}
- description: add key and delete all keys from map
  original: {name: 1, value: 1}
  patch: {other: a, $patch: replace}
  result: {other: a}
- description: delete all duplicate entries in a merging list
  original: {mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]}
  patch: {mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]}
  result: {mergingList: [{name: 2, value: a}]}
- description: delete all duplicate entries in a merging list, directives repeated
  original: {mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]}
  patch: {mergingList: [{name: 1, $patch: delete}, {name: 1, $patch: delete}, {name: 3, $patch: delete}, {name: 3, $patch: delete}]}
  result: {mergingList: [{name: 2, value: a}]}
- description: retainKeys map can add a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo}}
  patch: {retainKeysMap: {value: bar}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map can change a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  patch: {retainKeysMap: {value: b}}
  result: {retainKeysMap: {name: foo, value: b}}
- description: retainKeys map can delete a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  patch: {retainKeysMap: {value: null}}
  result: {retainKeysMap: {name: foo}}
- description: retainKeys map merge an empty map
  original: {retainKeysMap: {name: foo, value: a}}
  patch: {retainKeysMap: {}}
  result: {retainKeysMap: {name: foo, value: a}}
- description: retainKeys list can add a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  patch: {retainKeysMergingList: [{name: foo, value: a}]}
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: retainKeys list can delete a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  patch: {retainKeysMergingList: [{name: foo, value: null}]}
  result: {retainKeysMergingList: [{name: bar}, {name: foo}]}
- description: preserve the order from the patch in a merging list
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  patch: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]}
  result: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]}
- description: preserve the order from the patch in a merging list 2
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  patch: {mergingList: [{name: 3, value: c}, {name: 1, value: a}]}
  result: {mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]}
- description: preserve the order from the patch in a merging int list
  original: {mergingIntList: [1, 2, 3]}
  patch: {mergingIntList: [3, 1, 2]}
  result: {mergingIntList: [3, 1, 2]}
- description: preserve the order from the patch in a merging int list 2
  original: {mergingIntList: [1, 2, 3]}
  patch: {mergingIntList: [3, 1]}
  result: {mergingIntList: [2, 3, 1]}

- description: $deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list
  original: {mergingIntList: [1, 2]}
  patch: {$deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [1, 2]}
- description: $deleteFromPrimitiveList on empty primitive list should not add the item to the list
  original: {mergingIntList: null}
  patch: {$deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: null}
- description: $deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list
  original: {foo: [bar]}
  patch: {$deleteFromPrimitiveList/mergingIntList: [3]}
  result: {foo: [bar]}
- description: $deleteFromPrimitiveList should delete item from a list with merge patch strategy
  original: {mergingIntList: [1, 2, 3]}
  patch: {$deleteFromPrimitiveList/mergingIntList: [2]}
  result: {mergingIntList: [1, 3]}
- description: $deleteFromPrimitiveList should delete item from a list without merge patch strategy
  original: {nonMergingIntList: [1, 2, 3]}
  patch: {$deleteFromPrimitiveList/nonMergingIntList: [2]}
  result: {nonMergingIntList: [1, 3]}

# customStrategicMergePatchRawTestCases
- description: $setElementOrder contains item that is not present in the list to be merged
  original: {mergingList: [{name: 1}, {name: 3}]}
  patch:
    $setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  result: {mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}
- description: $setElementOrder contains item that is not present in the int list to be merged
  original: {mergingIntList: [1, 3]}
  patch: {$setElementOrder/mergingIntList: [3, 2, 1]}
  result: {mergingIntList: [3, 1]}
- description: should check if order in $setElementOrder and patch list match
  original: {mergingList: [{name: 1}, {name: 3}, {name: 2}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  error: doesn't match
- description: should check if order in $setElementOrder and patch int list match
  original: {mergingIntList: [1, 3, 2]}
  patch: {$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3, 1]}
  error: doesn't match
- description: missing merge key should error out
  original: {mergingList: [{name: 1, value: a}]}
  patch: {mergingList: [{value: b}]}
  error: does not contain declared merge key

# createStrategicMergePatchTestCaseData
- description: nil original (two-way)
  patch: {name: 1, value: 1}
  result: {name: 1, value: 1}
- description: nil original (three-way)
  original: {name: 1, other: a}
  patch: {value: 1}
  result: {name: 1, value: 1, other: a}
- description: add field to map with conflict (three-way)
  original: {name: a, other: a}
  patch: {name: 1, value: 1}
  result: {name: 1, value: 1, other: a}
- description: add field and delete field from map (two-way)
  original: {name: 1}
  patch: {name: null, value: 1}
  result: {value: 1}
- description: add field and delete field from map (three-way)
  original: {name: 1, other: a}
  patch: {name: null, value: 1}
  result: {value: 1, other: a}
- description: delete field from nested map (three-way)
  original: {simpleMap: {key1: 1, key2: 1, other: a}}
  patch: {simpleMap: {key2: null}}
  result: {simpleMap: {key1: 1, other: a}}
- description: delete field from nested map with conflict (three-way)
  original: {simpleMap: {key1: a, key2: 1, other: a}}
  patch: {simpleMap: {key1: 1, key2: null}}
  result: {simpleMap: {key1: 1, other: a}}
- description: delete all fields from map (three-way)
  original: {name: 1, value: 1, other: a}
  patch: {name: null, value: null}
  result: {other: a}
- description: add field and delete all fields from map with conflict (three-way)
  original: {name: 1, value: 1, other: b}
  patch: {name: null, value: null, other: a}
  result: {other: a}
- description: replace list of scalars with conflict (three-way)
  original: {nonMergingIntList: [1, 4]}
  patch: {nonMergingIntList: [2, 3]}
  result: {nonMergingIntList: [2, 3]}
- description: delete all maps from merging list with conflict (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  patch: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: delete all maps from empty merging list (three-way)
  original: {mergingList: []}
  patch: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: defined null values should propagate overwrite current fields (with conflict) (two-way)
  original: {name: 2}
  patch: {name: 1, value: 1, other: null}
  result: {name: 1, value: 1}
- description: defined null values should propagate removing original fields (three-way)
  original: {name: original-name, value: original-value, other: current-other}
  patch: {name: modified-name, value: null}
  result: {name: modified-name, other: current-other}

# strategicMergePatchRawTestCases
- description: delete items in lists of scalars (three-way)
  original: {mergingIntList: [1, 2, 3, 4]}
  patch: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 4]}
- description: delete all duplicate items in lists of scalars (three-way)
  original: {mergingIntList: [1, 2, 3, 3, 4]}
  patch: {$setElementOrder/mergingIntList: [1, 2], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 4]}
- description: add and delete items in lists of scalars (two-way)
  original: {mergingIntList: [1, 2, 3]}
  patch: {$setElementOrder/mergingIntList: [1, 2, 4], $deleteFromPrimitiveList/mergingIntList: [3], mergingIntList: [4]}
  result: {mergingIntList: [1, 2, 4]}
- description: merge lists of maps (two-way)
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  patch:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
- description: merge lists of maps (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: merge lists of maps with conflict (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 3, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 2, value: 2}, {name: 3, value: 3}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: add field to map in merging list with conflict (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]
  result: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2}, {name: 3, value: 2, other: b}]}
- description: delete of a duplicated item removes every copy (two-way)
  original: {mergingList: [{name: 1}, {name: 1}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}]
    mergingList: [{$patch: delete, name: 1}]
  result: {mergingList: []}
- description: delete duplicate field in merging list (two-way)
  original: {mergingList: [{name: 1}, {name: 1}]}
  patch: {mergingList: {}}
  result: {mergingList: {}}
- description: add an item that already exists in current object in merging list (two-way)
  original: {mergingList: [{name: 1, value: a}, {name: 2}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3}]
  result: {mergingList: [{name: 1, value: a}, {name: 2}, {name: 3}]}
- description: replace map field value in merging list with conflict (three-way)
  original: {mergingList: [{name: 1, value: 3, other: a}, {name: 2, value: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: a}]
  result: {mergingList: [{name: 1, value: a, other: a}, {name: 2, value: 2, other: b}]}
- description: delete map from merging list (three-way)
  original: {mergingList: [{name: 1}, {name: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}]}
- description: delete missing map from merging list (three-way)
  original: {mergingList: [{name: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}]}
- description: delete missing map from merging list with conflict (three-way)
  original: {mergingList: [{name: 3, other: a}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 2}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 2}, {name: 3, other: a}]}
- description: add map and delete map from merging list (two-way)
  original: {mergingList: [{name: 1}, {name: 2}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 2}, {name: 3}]}
- description: add map and delete map from merging list (three-way)
  original: {mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}, {name: 4, other: c}, {name: 3}]}
- description: add map and delete map from merging list with conflict (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 4, other: c}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 4, other: c}, {name: 2}, {name: 3}]}
- description: delete field from map in merging list (three-way)
  original: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: replace non merging list nested in merging list (three-way)
  original: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list (three-way)
  original: {mergingList: [{name: 1, other: a, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
      - $setElementOrder/mergingList: [{name: 1}, {name: 2}]
        name: 1
        mergingList: [{name: 1, value: 1}]
  result: {mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list with deletion conflict (three-way)
  original: {mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
      - $setElementOrder/mergingList: [{name: 1}, {name: 2}]
        name: 1
        mergingList: [{name: 1, value: 1}]
  result: {mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1}, {name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list with deletion conflict, reordered (three-way)
  original: {mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList:
      - $setElementOrder/mergingList: [{name: 2}, {name: 1}]
        name: 1
        mergingList: [{name: 1, value: 1}]
  result: {mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}, {name: 1, value: 1}]}, {name: 2, other: b}]}
- description: add map to merging list by pointer (three-way)
  original: {mergeItemPtr: [{name: 1, other: a}, {name: 3}]}
  patch:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{name: 2}]
  result: {mergeItemPtr: [{name: 1, other: a}, {name: 2}, {name: 3}]}
- description: add map to merging list by pointer with conflict (three-way)
  original: {mergeItemPtr: [{name: 3}]}
  patch:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{name: 1}, {name: 2}]
  result: {mergeItemPtr: [{name: 1}, {name: 2}, {name: 3}]}
- description: merge lists of scalars (three-way)
  original: {mergingIntList: [1, 2, 4]}
  patch: {$setElementOrder/mergingIntList: [1, 2, 3], mergingIntList: [3]}
  result: {mergingIntList: [1, 2, 3, 4]}
- description: add an item in a list of primitives and preserve order (three-way)
  original: {mergingIntList: [1, 4, 2]}
  patch: {$setElementOrder/mergingIntList: [3, 1, 2], mergingIntList: [3]}
  result: {mergingIntList: [3, 1, 4, 2]}
- description: delete an item in a list of primitives and preserve order (two-way)
  original: {mergingIntList: [1, 2, 3]}
  patch: {$setElementOrder/mergingIntList: [2, 1], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [2, 1]}
- description: add an item in a list and preserve order (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 3}, {name: 1}, {name: 2}]
    mergingList: [{name: 3, value: 3}]
  result: {mergingList: [{name: 3, value: 3}, {name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: add multiple items in a list and preserve order (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 1, other: a}, {name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: delete an item in a list and preserve order (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}, {name: 1}]
    mergingList: [{name: 3, $patch: delete}]
  result: {mergingList: [{name: 2, value: 2, other: b}, {name: 1, other: a}]}
- description: change an item in a list and preserve order (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
  patch:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}, {name: 1}]
    mergingList: [{name: 3, value: x}]
  result: {mergingList: [{name: 2, value: 2, other: b}, {name: 3, value: x}, {name: 1, other: a}]}
- description: add and delete an item in a list and preserve order (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
  patch:
    $setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}]
    mergingList: [{name: 4, value: 4}, {name: 3, $patch: delete}]
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 1, other: a}]}
- description: set elements order in a list (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}]}
  patch: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1, other: a}]}
- description: set elements order in a list with server-only items (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}, {name: 9}]}
  patch: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1, other: a}, {name: 9}]}
- description: set elements order in a list with server-only items 2 (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2}, {name: 9}, {name: 3, value: 3}, {name: 4, value: 4}]}
  patch: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  result: {mergingList: [{name: 2, value: 2}, {name: 1, other: a}, {name: 9}, {name: 4, value: 4}, {name: 3, value: 3}]}
- description: set elements order in a list with server-only items 3 (three-way)
  original: {mergingList: [{name: 1, other: a}, {name: 2, value: 2}, {name: 7}, {name: 9}, {name: 8}, {name: 3, value: 3}, {name: 4, value: 4}]}
  patch: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  result: {mergingList: [{name: 2, value: 2}, {name: 1, other: a}, {name: 7}, {name: 9}, {name: 8}, {name: 4, value: 4}, {name: 3, value: 3}]}
- description: add multiple items in a int list and preserve order (two-way)
  original: {mergingIntList: [1, 2]}
  patch: {$setElementOrder/mergingIntList: [1, 4, 2, 3], mergingIntList: [4, 3]}
  result: {mergingIntList: [1, 4, 2, 3]}
- description: add and delete an item in a int list and preserve order (two-way)
  original: {mergingIntList: [1, 3, 2]}
  patch: {$setElementOrder/mergingIntList: [4, 2, 1], mergingIntList: [4], $deleteFromPrimitiveList/mergingIntList: [3]}
  result: {mergingIntList: [4, 2, 1]}
- description: set elements order in a int list with server-only items (three-way)
  original: {mergingIntList: [1, 3, 4, 2, 9]}
  patch: {$setElementOrder/mergingIntList: [4, 2, 3, 1]}
  result: {mergingIntList: [4, 2, 3, 1, 9]}
- description: set elements order in a int list with server-only items 2 (three-way)
  original: {mergingIntList: [1, 2, 9, 3, 4]}
  patch: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  result: {mergingIntList: [2, 1, 9, 4, 3]}
- description: set elements order in a int list with server-only items 3 (three-way)
  original: {mergingIntList: [1, 2, 7, 9, 8, 3, 4]}
  patch: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  result: {mergingIntList: [2, 1, 7, 9, 8, 4, 3]}
- description: behavior of set element order for a merging list with duplicate (two-way)
  original: {mergingList: [{name: 1}, {name: 2, value: dup1}, {name: 3}, {name: 2, value: dup2}, {name: 4}]}
  patch: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}, {name: 2}]}
  result: {mergingList: [{name: 2, value: dup1}, {name: 2, value: dup2}, {name: 1}, {name: 4}, {name: 3}]}
- description: behavior of set element order for a merging int list with duplicate (two-way)
  original: {mergingIntList: [1, 2, 3, 2, 4]}
  patch: {$setElementOrder/mergingIntList: [2, 1, 4, 3, 2]}
  result: {mergingIntList: [2, 2, 1, 4, 3]}
- description: retainKeys map should clear defaulted field (three-way)
  original: {retainKeysMap: {value: foo}}
  patch: {retainKeysMap: {$retainKeys: [other], other: bar}}
  result: {retainKeysMap: {other: bar}}
- description: retainKeys map should clear defaulted field with conflict (discriminated union) (three-way)
  original: {retainKeysMap: {name: type1, value: foo}}
  patch: {retainKeysMap: {$retainKeys: [name, other], name: type2, other: bar}}
  result: {retainKeysMap: {name: type2, other: bar}}
- description: retainKeys map adds a field and clear a field (three-way)
  original: {retainKeysMap: {name: foo, other: a}}
  patch: {retainKeysMap: {$retainKeys: [name, value], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map deletes a field and clears a field (three-way)
  original: {retainKeysMap: {name: foo, value: bar, other: a}}
  patch: {retainKeysMap: {$retainKeys: [name], value: null}}
  result: {retainKeysMap: {name: foo}}
- description: retainKeys map clears a field (three-way)
  original: {retainKeysMap: {name: foo, value: bar, other: a}}
  patch: {retainKeysMap: {$retainKeys: [name, value]}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map adds a field in a nested map (three-way)
  original: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key3: c}}}
  patch: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key2: b}}}
  result: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b, key3: c}}}
- description: retainKeys map deletes a field in a nested map (three-way)
  original: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b, key3: c}}}
  patch: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key2: null}}}
  result: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key3: c}}}
- description: retainKeys map replaces non-merging list (three-way)
  original: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}
  patch: {retainKeysMap: {$retainKeys: [name, nonMergingList, value], nonMergingList: [{name: a}, {name: c}, {name: b}]}}
  result: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: c}, {name: b}]}}
- description: retainKeys map delete nested non-merging list with conflict (three-way)
  original: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}, {name: c}]}}
  patch: {retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map nested merging int list with no change (three-way)
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  patch: {retainKeysMap: {$retainKeys: [mergingIntList, name, value], $setElementOrder/mergingIntList: [1, 2], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar, mergingIntList: [1, 2, 3]}}
- description: retainKeys map adds an item in nested merging int list (three-way)
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  patch: {retainKeysMap: {$setElementOrder/mergingIntList: [1, 2, 4], $retainKeys: [mergingIntList, name], mergingIntList: [4]}}
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 4, 3]}}
- description: retainKeys map deletes an item in nested merging int list (three-way)
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}}
  patch: {retainKeysMap: {$retainKeys: [mergingIntList, name], $deleteFromPrimitiveList/mergingIntList: [2], $setElementOrder/mergingIntList: [1, 3]}}
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 3, 4]}}
- description: retainKeys map adds an item and deletes an item in nested merging int list (three-way)
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}}
  patch:
    retainKeysMap:
      $retainKeys: [mergingIntList, name]
      mergingIntList: [5]
      $deleteFromPrimitiveList/mergingIntList: [2]
      $setElementOrder/mergingIntList: [1, 3, 5]
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 3, 5, 4]}}
- description: retainKeys map deletes nested merging int list (three-way)
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  patch: {retainKeysMap: {$retainKeys: [name], mergingIntList: null}}
  result: {retainKeysMap: {name: foo}}
- description: retainKeys map nested merging list with no change (three-way)
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}]}}
  patch: {retainKeysMap: {$retainKeys: [mergingList, name, value], $setElementOrder/mergingList: [{name: a}, {name: b}], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar, mergingList: [{name: a}, {name: b}, {name: c}]}}
- description: retainKeys map adds an item in nested merging list (three-way)
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}}
  patch:
    retainKeysMap:
      $retainKeys: [mergingList, name]
      $setElementOrder/mergingList: [{name: a}, {name: b}, {name: c}]
      mergingList: [{name: c}]
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}, {name: x}]}}
- description: retainKeys map changes an item in nested merging list (three-way)
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: foo}, {name: x}]}}
  patch:
    retainKeysMap:
      $retainKeys: [mergingList, name]
      $setElementOrder/mergingList: [{name: a}, {name: b}]
      mergingList: [{name: b, value: bar}]
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: bar}, {name: x}]}}
- description: retainKeys map deletes an item in nested merging list (three-way)
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}}
  patch:
    retainKeysMap:
      $retainKeys: [mergingList, name]
      $setElementOrder/mergingList: [{name: a}]
      mergingList: [{name: b, $patch: delete}]
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: x}]}}
- description: retainKeys list of maps clears a field (three-way)
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}
  patch:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: retainKeys list of maps changes a field and clear a field with conflict (three-way)
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: modified, other: x}]}
  patch:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: new}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: new}]}
- description: retainKeys list of maps deletes a field and clear a field (three-way)
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}
  patch:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name], name: foo, value: null}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo}]}
- description: delete and reorder in one list, reorder in another (two-way)
  original: {mergingList: [{name: a, value: a}, {name: b, value: b}], mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}
  patch:
    $setElementOrder/mergingList: [{name: b}]
    $setElementOrder/mergeItemPtr: [{name: d}, {name: c}]
    mergingList: [{$patch: delete, name: a}]
  result: {mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}

# replaceRawExtensionPatchTestCases
- description: replace RawExtension field and merge list (three-way)
  original: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 3}], replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}}
  patch:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 2}]
    replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
  result: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}, {name: 3}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}

# TestUnknownField (fields MergeItem lacks merge as maps and replace as lists)
- description: unknown fields, added only (two-way)
  original: {name: foo}
  patch: {array: [1, 2, 3], complex: {nested: true}, scalar: true}
  result: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
- description: unknown fields, removed only (three-way)
  original: {name: foo, scalar: true, complex: {nested: true}, array: [1, 2, 3]}
  patch: {complex: null, scalar: null}
  result: {array: [1, 2, 3], name: foo}
`);

describe('strategic merge patch: kube patch_test.go tables', () => {
  it.each(CASES.map((c) => [c.description, c] as const))('%s', (_name, c) => {
    if (c.error !== undefined) {
      expect(() => strategicMergeMapPatch(c.original, c.patch, MERGE_ITEM)).toThrow(c.error);
    } else {
      expect(strategicMergeMapPatch(c.original, c.patch, MERGE_ITEM)).toStrictEqual(c.result);
    }
  });

  it('translates at least 40 of kube cases', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });
});

// Go's sort.SliceStable (insertion sort over blocks of 20, then SymMerge), step for step. kube
// sorts list items with a "less" that is not a strict order when an item is missing from the
// reference list, so the result depends on the algorithm's exact comparisons: only Go's own gives
// kube's order.

type Less = (i: number, j: number) => boolean;

function swap<T>(a: T[], i: number, j: number): void {
  const t = a[i]!;
  a[i] = a[j]!;
  a[j] = t;
}

function insertionSort<T>(a: T[], less: Less, lo: number, hi: number): void {
  for (let i = lo + 1; i < hi; i++) {
    for (let j = i; j > lo && less(j, j - 1); j--) swap(a, j, j - 1);
  }
}

function swapRange<T>(a: T[], x: number, y: number, n: number): void {
  for (let i = 0; i < n; i++) swap(a, x + i, y + i);
}

function rotate<T>(a: T[], lo: number, m: number, hi: number): void {
  let i = m - lo;
  let j = hi - m;
  while (i !== j) {
    if (i > j) {
      swapRange(a, m - i, m, j);
      i -= j;
    } else {
      swapRange(a, m - i, m + j - i, i);
      j -= i;
    }
  }
  swapRange(a, m - i, m, i);
}

// Recursion depth is logarithmic in the list length.
function symMerge<T>(a: T[], less: Less, lo: number, m: number, hi: number): void {
  if (m - lo === 1) {
    let i = m;
    let j = hi;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (less(h, lo)) i = h + 1;
      else j = h;
    }
    for (let k = lo; k < i - 1; k++) swap(a, k, k + 1);
    return;
  }
  if (hi - m === 1) {
    let i = lo;
    let j = m;
    while (i < j) {
      const h = (i + j) >>> 1;
      if (!less(m, h)) i = h + 1;
      else j = h;
    }
    for (let k = m; k > i; k--) swap(a, k, k - 1);
    return;
  }
  const mid = (lo + hi) >>> 1;
  const n = mid + m;
  let start: number;
  let r: number;
  if (m > mid) {
    start = n - hi;
    r = mid;
  } else {
    start = lo;
    r = m;
  }
  const p = n - 1;
  while (start < r) {
    const c = (start + r) >>> 1;
    if (!less(p - c, c)) start = c + 1;
    else r = c;
  }
  const end = n - start;
  if (start < m && m < end) rotate(a, start, m, end);
  if (lo < start && start < mid) symMerge(a, less, lo, start, mid);
  if (mid < end && end < hi) symMerge(a, less, mid, end, hi);
}

/** sort.SliceStable(a, less) in place; `less` compares the items now at positions i and j. */
export function goSliceStable<T>(a: T[], less: Less): void {
  const n = a.length;
  let blockSize = 20;
  let lo = 0;
  let hi = blockSize;
  while (hi <= n) {
    insertionSort(a, less, lo, hi);
    lo = hi;
    hi += blockSize;
  }
  insertionSort(a, less, lo, n);
  while (blockSize < n) {
    lo = 0;
    hi = 2 * blockSize;
    while (hi <= n) {
      symMerge(a, less, lo, lo + blockSize, hi);
      lo = hi;
      hi += 2 * blockSize;
    }
    const m = lo + blockSize;
    if (m < n) symMerge(a, less, lo, m, n);
    blockSize *= 2;
  }
}

// Go's int64 and uint64 bounds, which kube's numbers (and CEL's int and uint) live within.
export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

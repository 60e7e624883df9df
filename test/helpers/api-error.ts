// Unit tests of code that throws kube Status errors: what was thrown, as the ApiError it must be.
import { ApiError } from '../../apimachinery/errors.js';

export function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected an ApiError');
}

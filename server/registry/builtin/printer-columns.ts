// The columns kube's built-in printers (pkg/printers/internalversion) declare: every one typed
// "string", whatever its cells hold, and described by the field's swagger doc.
import type { ServedColumn } from '../catalog.js';

/** metav1.ObjectMeta's swagger doc for creationTimestamp. */
const CREATION_TIMESTAMP_DOC =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

/** The Age column every printer ends with (translateTimestampSince of creationTimestamp). */
export const PRINTER_AGE: ServedColumn = {
  name: 'Age',
  type: 'string',
  description: CREATION_TIMESTAMP_DOC,
  jsonPath: '.metadata.creationTimestamp',
  age: true,
};

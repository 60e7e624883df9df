// Structured merge (server-side apply): kube's sigs.k8s.io/structured-merge-diff, in TypeScript.
export * from './values.js';
export * from './schema.js';
export * from './fieldpath.js';
export * from './fields-v1.js';
export * from './typed.js';
export * from './conflicts.js';
export * from './update.js';
export * from './strip-meta.js';
export { call, pause, runTask, runTaskSliced, type Task } from './trampoline.js';

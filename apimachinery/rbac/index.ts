// rbac.authorization.k8s.io's pure logic: types, rule matching, the authorizer over a rule
// source, escalation checks, validation and aggregation.
export * from './types.js';
export * from './rules.js';
export * from './authorizer.js';
export * from './escalation.js';
export * from './validation.js';
export * from './aggregation.js';
export * from './defaults.js';

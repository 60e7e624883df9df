// authorization.k8s.io/v1's access reviews and authentication.k8s.io/v1's SelfSubjectReview: kinds
// only ever created, answered from the request (by the authorizer, server/authz/reviews.ts) and
// never stored.
import { reviewSchema } from '../../../apimachinery/apis/builtin-schemas.js';
import { type BuiltinKind, createOnlyKind } from './kind.js';

export const AUTHORIZATION_GROUP = 'authorization.k8s.io';
const AUTHENTICATION_GROUP = 'authentication.k8s.io';

const accessReview = (resource: string, kind: string, namespaced: boolean): BuiltinKind =>
  createOnlyKind(
    AUTHORIZATION_GROUP,
    resource,
    kind,
    namespaced,
    'k8s.io/api/authorization/v1',
    reviewSchema(`${kind} checks whether a user or group can perform an action.`),
  );

export const ACCESS_REVIEWS: readonly BuiltinKind[] = [
  accessReview('selfsubjectaccessreviews', 'SelfSubjectAccessReview', false),
  accessReview('selfsubjectrulesreviews', 'SelfSubjectRulesReview', false),
  accessReview('subjectaccessreviews', 'SubjectAccessReview', false),
  accessReview('localsubjectaccessreviews', 'LocalSubjectAccessReview', true),
];

export const SELF_SUBJECT_REVIEWS: BuiltinKind = createOnlyKind(
  AUTHENTICATION_GROUP,
  'selfsubjectreviews',
  'SelfSubjectReview',
  false,
  'k8s.io/api/authentication/v1',
  reviewSchema(
    'SelfSubjectReview contains the user information that the kube-apiserver has about the user making this request.',
    false,
  ),
);

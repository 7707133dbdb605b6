/** API group of the ServiceWithHealthchecks resource (compatible with the original module). */
export const GROUP = "network.deckhouse.io";
/** Served and stored version of the resource. */
export const VERSION = "v1alpha1";
/** `apiVersion` field value of every ServiceWithHealthchecks object. */
export const API_VERSION = `${GROUP}/${VERSION}`;
/** Kind of the resource. */
export const KIND = "ServiceWithHealthchecks";
/** Kind of the resource's list. */
export const LIST_KIND = "ServiceWithHealthchecksList";
/** Plural resource name, as used in API paths and RBAC rules. */
export const PLURAL = "servicewithhealthchecks";
/** Singular resource name. */
export const SINGULAR = "servicewithhealthcheck";
/** Short name for kubectl. */
export const SHORT_NAME = "swh";

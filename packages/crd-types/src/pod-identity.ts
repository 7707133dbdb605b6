/**
 * Pod identity variables (ADR 0036): probe texts that may name the pod being probed — what a TCP probe sends and
 * expects, an HTTP probe's body and response header expectations — write `$(POD_NAME)`,
 * `$(POD_NAMESPACE)` or `$(POD_UID)`, the syntax of Kubernetes' own `$(VAR)` references. The agent expands them
 * per pod before probing, so a check can require the answer of *this* pod: a recycled pod IP answering for its
 * predecessor fails. Any other `$(` is refused by the schema, so a typo is an error, never a literal.
 */

/** Each variable and the pod field it stands for. */
export const POD_IDENTITY_VARIABLES = {
  POD_NAME: "name",
  POD_NAMESPACE: "namespace",
  POD_UID: "uid",
} as const;

/** The pod fields the variables stand for. */
export interface PodIdentity {
  name: string;
  namespace: string;
  uid: string;
}

const REFERENCE = /\$\((POD_NAME|POD_NAMESPACE|POD_UID)\)/g;

/** `text` with every variable replaced by the field of `pod` it names. */
export function expandPodIdentity(text: string, pod: PodIdentity): string {
  if (!text.includes("$(")) return text;
  return text.replace(REFERENCE, (_ref, variable: keyof typeof POD_IDENTITY_VARIABLES) => {
    return pod[POD_IDENTITY_VARIABLES[variable]];
  });
}

/** True when every `$(` of `text` starts one of the variables (the schema's rule, in TypeScript). */
export function hasOnlyPodIdentityReferences(text: string): boolean {
  return !text.replace(REFERENCE, "").includes("$(");
}

/** The CEL twin of `hasOnlyPodIdentityReferences` for a string `self`. */
export const POD_IDENTITY_RULE = `!self${Object.keys(POD_IDENTITY_VARIABLES)
  .map((v) => `.replace('$(${v})', '')`)
  .join("")}.contains('$(')`;

/** The message of that rule, naming the field. */
export function podIdentityRuleMessage(field: string): string {
  const names = Object.keys(POD_IDENTITY_VARIABLES).map((v) => `$(${v})`);
  return `${field} may reference only ${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * A probe as it runs on one pod: the pod identity variables of its texts (ADR 0036; `$(POD_NAME)`,
 * `$(POD_NAMESPACE)`, `$(POD_UID)` in what a TCP probe sends and expects, an HTTP probe's header and body
 * expectations) filled in with that pod's fields. A probe without a reference is returned
 * as it is, so probes that name no pod keep one object (and one memoized target id) for every pod.
 */
import { type DefaultedProbeSpec, expandPodIdentity, type PodIdentity } from "@swh/crd-types";

/** Whether each (immutable) probe object references a variable: checked once per probe, not per pod. */
const references = new WeakMap<DefaultedProbeSpec, boolean>();

/** `probe` with its variables filled in for `pod` (see the file comment). */
export function probeForPod(probe: DefaultedProbeSpec, pod: PodIdentity): DefaultedProbeSpec {
  let named = references.get(probe);
  if (named === undefined) {
    named = identityTexts(probe).some((text) => text.includes("$("));
    references.set(probe, named);
  }
  if (!named) return probe;
  const fill = (text: string) => expandPodIdentity(text, pod);
  const fillAll = <T extends { value: string }>(list: readonly T[] | undefined) =>
    list?.map((h) => ({ ...h, value: fill(h.value) }));
  const { tcp, http } = probe;
  return {
    ...probe,
    ...(tcp === undefined ? {} : { tcp: mapDefined(tcp, ["send", "expect"], fill) }),
    ...(http === undefined
      ? {}
      : {
          http: {
            ...http,
            ...defined("responseHeaders", fillAll(http.responseHeaders)),
            ...(http.body === undefined
              ? {}
              : { body: mapDefined(http.body, ["contains", "notContains"], fill) }),
          },
        }),
  };
}

/** Every text of `probe` that may reference a variable. */
function identityTexts(probe: DefaultedProbeSpec): string[] {
  const { tcp, http } = probe;
  const texts = [tcp?.send, tcp?.expect, http?.body?.contains, http?.body?.notContains];
  for (const h of http?.responseHeaders ?? []) texts.push(h.value);
  return texts.filter((t): t is string => typeof t === "string");
}

/** `object` with `fn` applied to those of `keys` that are set. */
function mapDefined<T extends object, K extends keyof T>(
  object: T,
  keys: readonly K[],
  fn: (v: string) => string,
): T {
  const out = { ...object };
  for (const key of keys) {
    const value = out[key];
    if (typeof value === "string") out[key] = fn(value) as T[K];
  }
  return out;
}

/** `{ [key]: value }`, or nothing when `value` is undefined (`exactOptionalPropertyTypes`). */
function defined<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

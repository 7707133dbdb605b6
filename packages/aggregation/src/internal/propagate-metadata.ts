/**
 * Label and annotation propagation from an SWH to its child Service. The Service remembers, in two bookkeeping
 * annotations, which keys came from the SWH; a key the SWH no longer carries is removed only when it is in that
 * list, so keys written by others (an LB controller, an operator with kubectl) survive every sync.
 */
import {
  ANNOTATION_PROPAGATED_ANNOTATIONS,
  ANNOTATION_PROPAGATED_LABELS,
  NON_PROPAGATED_ANNOTATIONS,
} from "@swh/crd-types/internal";

/** Labels and annotations of an object (either may be missing). */
export interface MetadataMaps {
  readonly labels?: Readonly<Record<string, string>> | undefined;
  readonly annotations?: Readonly<Record<string, string>> | undefined;
}

/** The labels and annotations a child Service should carry. */
export interface PropagatedMetadata {
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const BOOKKEEPING = new Set([ANNOTATION_PROPAGATED_LABELS, ANNOTATION_PROPAGATED_ANNOTATIONS]);
const NEVER_PROPAGATED = new Set(NON_PROPAGATED_ANNOTATIONS);

/** The SWH annotations that reach the Service: all but kubectl/Helm bookkeeping and our own. */
function propagatableAnnotations(
  annotations: Readonly<Record<string, string>> | undefined,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations ?? {})) {
    if (NEVER_PROPAGATED.has(key) || BOOKKEEPING.has(key)) continue;
    out[key] = value;
  }
  return out;
}

/**
 * Merges the SWH's labels and annotations into the Service's: the SWH's keys win, keys this controller
 * propagated earlier and the SWH dropped are removed, all other keys are kept, and the bookkeeping annotations
 * are rewritten with the keys propagated now (sorted, JSON arrays). Inputs are never modified.
 */
export function mergePropagatedMetadata(source: MetadataMaps, target: MetadataMaps): PropagatedMetadata {
  const sourceLabels = { ...(source.labels ?? {}) };
  const sourceAnnotations = propagatableAnnotations(source.annotations);
  const targetAnnotations = target.annotations ?? {};

  const labels = mergeKeys(
    target.labels ?? {},
    sourceLabels,
    parseKeyList(targetAnnotations[ANNOTATION_PROPAGATED_LABELS]),
  );
  const annotations = mergeKeys(
    targetAnnotations,
    sourceAnnotations,
    parseKeyList(targetAnnotations[ANNOTATION_PROPAGATED_ANNOTATIONS]),
  );
  annotations[ANNOTATION_PROPAGATED_LABELS] = JSON.stringify(Object.keys(sourceLabels).sort());
  annotations[ANNOTATION_PROPAGATED_ANNOTATIONS] = JSON.stringify(Object.keys(sourceAnnotations).sort());
  return { labels, annotations };
}

function mergeKeys(
  target: Readonly<Record<string, string>>,
  source: Readonly<Record<string, string>>,
  previouslyPropagated: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = { ...target };
  for (const key of previouslyPropagated) {
    if (!(key in source) && !BOOKKEEPING.has(key)) delete out[key];
  }
  return Object.assign(out, source);
}

/** Reads a bookkeeping annotation; anything but a JSON array of strings counts as "nothing propagated". */
function parseKeyList(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === "string") : [];
  } catch {
    return [];
  }
}

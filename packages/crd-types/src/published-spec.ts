/**
 * The SWH spec as the controller publishes it on the child Service (`ANNOTATION_SWH_SPEC`, ADR 0032) and as the
 * agents read it back. One codec for both sides, so the two cannot drift.
 *
 * The annotation is input the agent must not trust more than the SWH itself: anyone who may edit the Service (the
 * SWH's namespace editors) can rewrite it. Editing it gives them nothing they lack — they can edit the SWH, or give
 * the Service a selector — but it skips the API server's validation, so the agent validates the spec against the
 * schema (`describeSpecIssues`) before it probes anything with it: probe timeouts and sizes stay within the CRD's
 * bounds (ADR 0016).
 */
import { ANNOTATION_SWH_SPEC, API_VERSION, KIND } from "./constants.js";
import type {
  ObjectMeta,
  OwnerReference,
  ServiceWithHealthchecks,
  ServiceWithHealthchecksSpec,
} from "./types.js";
import { describeSpecIssues } from "./validate.js";

/** What the annotation holds. */
export interface PublishedSpec {
  /** The SWH's uid: the spec belongs to the SWH the Service's controller reference names. */
  uid: string;
  /** The SWH's `metadata.generation` the spec was taken from (for people comparing it with the SWH). */
  generation?: number;
  spec: ServiceWithHealthchecksSpec;
  /**
   * The controller's verdict for a `trafficDistribution` that asks for zone hints: false when some endpoint of
   * the SWH has no zone, so no endpoint may carry one (ADR 0035). Absent when the spec asks for no zone hints;
   * an agent reading no verdict gives zone hints to the endpoints that have a zone.
   */
  zoneHints?: boolean;
  /**
   * The controller's fail-open verdict (ADR 0039): the Service port names whose failing endpoints are published as
   * if passing. Absent when no port fails open.
   */
  failOpen?: string[];
}

/** What the controller decided beyond the spec, published with it. */
export interface PublishedVerdicts {
  zoneHints?: boolean | undefined;
  /** Port names failing open (sorted); empty or undefined: none. */
  failOpen?: readonly string[] | undefined;
}

/** The annotation value for `swh` (the controller writes it on create, adoption and every update). */
export function publishedSpecValue(
  swh: Readonly<Pick<ServiceWithHealthchecks, "metadata" | "spec">>,
  verdicts: PublishedVerdicts = {},
): string {
  const published: PublishedSpec = { uid: swh.metadata.uid ?? "", spec: swh.spec };
  if (swh.metadata.generation !== undefined) published.generation = swh.metadata.generation;
  if (verdicts.zoneHints !== undefined) published.zoneHints = verdicts.zoneHints;
  if (verdicts.failOpen !== undefined && verdicts.failOpen.length > 0)
    published.failOpen = [...verdicts.failOpen];
  return JSON.stringify(published);
}

/** The parts of a Service (core/v1 shape) the agent reads an SWH from. `@kubernetes/client-node`'s V1Service fits. */
export interface PublishingService {
  metadata?:
    | {
        name?: string | undefined;
        namespace?: string | undefined;
        annotations?: Readonly<Record<string, string>> | undefined;
        ownerReferences?: readonly OwnerReference[] | undefined;
      }
    | undefined;
}

/** An SWH as read from its Service: identity and spec, no status. */
export interface PublishedSwh {
  apiVersion: typeof API_VERSION;
  kind: typeof KIND;
  metadata: Required<Pick<ObjectMeta, "name" | "namespace" | "uid">> & Pick<ObjectMeta, "generation">;
  spec: ServiceWithHealthchecksSpec;
}

/**
 * What a Service says about its SWH:
 * - `swh`: the spec could be read and is valid;
 * - `missing`: no annotation (a Service an older controller wrote, until the new one updates it): nothing is wrong
 *   yet, and nothing is known;
 * - `invalid`: an annotation that is not a valid spec (`problem` names the field, never a value).
 * `uid` is the SWH the annotation claims to belong to, when it says.
 */
export type ServiceSwh =
  | { state: "swh"; swh: PublishedSwh; uid: string; zoneHints: boolean; failOpen: string[] }
  | { state: "missing"; uid?: undefined }
  | { state: "invalid"; problem: string; uid?: string; spec?: unknown };

/** Reads the SWH published on `service` (pure; the Service must carry its name and namespace). */
export function readPublishedSwh(service: Readonly<PublishingService>): ServiceSwh {
  const raw = service.metadata?.annotations?.[ANNOTATION_SWH_SPEC];
  if (raw === undefined) return { state: "missing" };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { state: "invalid", problem: `annotation ${ANNOTATION_SWH_SPEC} is not JSON` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { state: "invalid", problem: `annotation ${ANNOTATION_SWH_SPEC} must be a JSON object` };
  }
  const { uid, generation, spec, zoneHints, failOpen } = value as {
    uid?: unknown;
    generation?: unknown;
    spec?: unknown;
    zoneHints?: unknown;
    failOpen?: unknown;
  };
  if (typeof uid !== "string" || uid === "") {
    return { state: "invalid", problem: `annotation ${ANNOTATION_SWH_SPEC}: uid must be a non-empty string` };
  }
  if (zoneHints !== undefined && typeof zoneHints !== "boolean") {
    return {
      state: "invalid",
      problem: `annotation ${ANNOTATION_SWH_SPEC}: zoneHints must be a boolean`,
      uid,
    };
  }
  if (
    failOpen !== undefined &&
    (!Array.isArray(failOpen) || failOpen.length > 100 || !failOpen.every((p) => typeof p === "string"))
  ) {
    return {
      state: "invalid",
      problem: `annotation ${ANNOTATION_SWH_SPEC}: failOpen must be a list of port names`,
      uid,
    };
  }
  const issues = describeSpecIssues(spec);
  if (issues !== undefined) return { state: "invalid", problem: issues, uid, spec };
  const metadata: PublishedSwh["metadata"] = {
    name: service.metadata?.name ?? "",
    namespace: service.metadata?.namespace ?? "",
    uid,
  };
  if (typeof generation === "number") metadata.generation = generation;
  return {
    state: "swh",
    uid,
    zoneHints: zoneHints !== false,
    failOpen: (failOpen as string[] | undefined) ?? [],
    swh: { apiVersion: API_VERSION, kind: KIND, metadata, spec: spec as ServiceWithHealthchecksSpec },
  };
}

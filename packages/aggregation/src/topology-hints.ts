/**
 * Topology hints (SPEC §9, ADR 0035): what `spec.trafficDistribution` asks of the EndpointSlices, since kube-proxy
 * reads only the `hints` of endpoints, never the Service field. `PreferClose` / `PreferSameZone` ask for
 * `forZones` (the endpoint's own zone), `PreferSameNode` for `forNodes` (its own node) and `forZones` as the
 * fallback for clients on nodes without a local endpoint. kube-proxy uses a kind of hint only when every ready
 * endpoint of the Service carries it, so zone hints are all or nothing: when some endpoint has no zone (its node
 * has no `topology.kubernetes.io/zone` label), no endpoint gets one. Only the controller sees every endpoint; it
 * decides (`zoneHintsVerdict`), publishes the verdict on the Service next to the spec, and each agent applies it
 * to the endpoints of its node (`endpointHints`). Pure.
 */

/** The hints a traffic distribution asks for. */
export interface WantedHints {
  zones: boolean;
  nodes: boolean;
}

/** The values of `trafficDistribution` that ask for hints, and which. Other values ask for none. */
const WANTED: Readonly<Record<string, WantedHints>> = {
  PreferClose: { zones: true, nodes: false },
  PreferSameZone: { zones: true, nodes: false },
  PreferSameNode: { zones: true, nodes: true },
};
const NONE: WantedHints = { zones: false, nodes: false };

/** The hints `trafficDistribution` asks for (none when unset or not a value kube-proxy knows). */
export function wantedHints(trafficDistribution: string | undefined): WantedHints {
  return (trafficDistribution === undefined ? undefined : WANTED[trafficDistribution]) ?? NONE;
}

/** An endpoint as far as hints go: where it runs. An empty zone is no zone. */
export interface EndpointPlace {
  nodeName?: string | undefined;
  zone?: string | undefined;
}

/** Whether every endpoint can carry a zone hint, and if not, which nodes stop it (sorted). */
export type ZoneHintsVerdict = { zoneHints: true } | { zoneHints: false; nodesWithoutZone: string[] };

/**
 * The controller's verdict over every endpoint of an SWH (all of them, ready or not, so a readiness change never
 * flips it): zone hints only when each one has a zone. No endpoint at all is no objection.
 */
export function zoneHintsVerdict(endpoints: Iterable<EndpointPlace>): ZoneHintsVerdict {
  const without = new Set<string>();
  for (const endpoint of endpoints) {
    if (endpoint.zone === undefined || endpoint.zone === "") without.add(endpoint.nodeName ?? "");
  }
  if (without.size === 0) return { zoneHints: true };
  return { zoneHints: false, nodesWithoutZone: [...without].sort() };
}

/**
 * The verdict the controller publishes with the spec: undefined while `trafficDistribution` asks for no zone
 * hints (such Services carry none), else whether every endpoint of the SWH can carry one.
 */
export function publishedZoneHints(
  trafficDistribution: string | undefined,
  endpoints: Iterable<EndpointPlace>,
): boolean | undefined {
  return wantedHints(trafficDistribution).zones ? zoneHintsVerdict(endpoints).zoneHints : undefined;
}

/** The hints of one endpoint, as names (the slice writer turns them into `{ name }` entries). */
export interface HintNames {
  forZones?: string[];
  forNodes?: string[];
}

/**
 * The hints of an endpoint on `place`: `forZones` when zones are wanted, allowed by the verdict and the endpoint
 * has a zone; `forNodes` when nodes are wanted. Undefined when it gets none.
 */
export function endpointHints(
  wanted: WantedHints,
  zoneHintsAllowed: boolean,
  place: EndpointPlace,
): HintNames | undefined {
  const hints: HintNames = {};
  if (wanted.zones && zoneHintsAllowed && place.zone !== undefined && place.zone !== "")
    hints.forZones = [place.zone];
  if (wanted.nodes && place.nodeName !== undefined && place.nodeName !== "")
    hints.forNodes = [place.nodeName];
  return hints.forZones === undefined && hints.forNodes === undefined ? undefined : hints;
}

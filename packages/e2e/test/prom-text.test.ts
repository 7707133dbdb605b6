import { describe, expect, it } from "vitest";
import { diffCounts, parsePromText, sumSamples, writesByResource } from "../src/index.js";

const TEXT = `# HELP apiserver_request_total Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",resource="endpointslices",verb="POST"} 3
apiserver_request_total{code="200",resource="endpointslices",verb="PUT"} 5
apiserver_request_total{code="200",resource="endpointslices",verb="LIST"} 40
apiserver_request_total{code="200",resource="servicewithhealthchecks",subresource="status",verb="PATCH"} 2
swh_slice_writes_total{action="update",result="success"} 7
swh_slice_writes_total{action="update",result="error"} 1
`;

describe("prometheus text", () => {
  it("sums samples by name and labels", () => {
    const samples = parsePromText(TEXT);
    expect(sumSamples(samples, "swh_slice_writes_total")).toBe(8);
    expect(sumSamples(samples, "swh_slice_writes_total", { result: "success" })).toBe(7);
    expect(sumSamples(samples, "apiserver_request_total", { verb: (v) => v !== "LIST" })).toBe(10);
  });

  it("counts API writes per resource and diffs two readings", () => {
    const before = writesByResource(parsePromText(TEXT));
    expect(Object.fromEntries(before)).toEqual({ endpointslices: 8, "servicewithhealthchecks/status": 2 });
    const after = writesByResource(parsePromText(TEXT.replace("} 5", "} 6")));
    expect(Object.fromEntries(diffCounts(before, after))).toEqual({ endpointslices: 1 });
  });
});

import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEPLOY_DIR, requiredTool, run } from "./support/tools.ts";

describe("alert rules (promtool)", () => {
  it("pass promtool check rules", () => {
    const result = run(requiredTool("promtool"), [
      "check",
      "rules",
      join(DEPLOY_DIR, "prometheus/alerts.yaml"),
    ]);
    expect(result.stdout + result.stderr).toContain("SUCCESS: 6 rules found");
    expect(result.status).toBe(0);
  });

  it("fire on the series they are about and stay silent on a healthy system (promtool test rules)", () => {
    const result = run(requiredTool("promtool"), [
      "test",
      "rules",
      join(DEPLOY_DIR, "test/alerts.promtool.yaml"),
    ]);
    expect(result.stdout + result.stderr).toContain("SUCCESS");
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });
});

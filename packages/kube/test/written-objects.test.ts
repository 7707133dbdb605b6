import type { KubernetesObject } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { WrittenObjects } from "../src/index.js";

interface Thing extends KubernetesObject {
  value?: string;
}

/** An object `ns/name` at `resourceVersion` (undefined: none). */
const at = (name: string, resourceVersion?: string, namespace = "shop"): Thing => ({
  metadata: { name, namespace, ...(resourceVersion === undefined ? {} : { resourceVersion }) },
});
const all = () => true;
const versions = (objs: readonly Thing[]) =>
  objs.map((o) => `${o.metadata?.name}@${o.metadata?.resourceVersion ?? "-"}`);
const versionOf = (obj: Thing | undefined) =>
  obj === undefined ? "gone" : `${obj.metadata?.name}@${obj.metadata?.resourceVersion ?? "-"}`;

describe("WrittenObjects.current", () => {
  it.each([
    ["nothing written: the cache", undefined, "10", "a@10"],
    ["cache certainly older: our write", "12", "10", "a@12"],
    ["compared as numbers, not as text", "10", "9", "a@10"],
    ["cache at our version: the cache", "12", "12", "a@12"],
    ["cache newer (somebody wrote after us): the cache", "12", "13", "a@13"],
    ["a smaller number is never newer", "9", "10", "a@10"],
    ["cache without the object (a create not delivered): our write", "12", undefined, "a@12"],
    ["our version not an integer: the cache", "x12", "10", "a@10"],
    ["the cache's version not an integer: the cache", "12", "x10", "a@x10"],
    ["our write without a version: the cache", "", "10", "a@10"],
  ])("%s", (_case, written, cached, expected) => {
    const objects = new WrittenObjects<Thing>();
    if (written !== undefined) objects.recordWrite(at("a", written === "" ? undefined : written));
    const cachedObj = cached === undefined ? undefined : at("a", cached);
    expect(versionOf(objects.current("shop/a", cachedObj))).toBe(expected);
  });

  it("hides an object we deleted until the informer delivers the delete, and shows it again once we write it", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordDelete({ namespace: "shop", name: "a" });
    expect(objects.current("shop/a", at("a", "10"))).toBeUndefined();
    objects.recordWrite(at("a", "15"));
    expect(versionOf(objects.current("shop/a", at("a", "10")))).toBe("a@15");
    objects.recordDelete({ namespace: "shop", name: "a" });
    expect(objects.observe(at("a", "10"), true)).toBe(true);
    expect(versionOf(objects.current("shop/a", at("a", "20")))).toBe("a@20");
  });

  it("keys cluster-scoped objects by name alone", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordWrite({ metadata: { name: "n1", resourceVersion: "5" } });
    expect(versionOf(objects.current("n1", { metadata: { name: "n1", resourceVersion: "4" } }))).toBe("n1@5");
    expect(objects.current("/n1", undefined)).toBeUndefined();
  });

  it("forgets one object, or everything", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordWrite(at("a", "12"));
    objects.recordWrite(at("b", "13"));
    objects.recordDelete({ namespace: "shop", name: "c" });
    objects.forget("shop/a");
    expect(versionOf(objects.current("shop/a", at("a", "10")))).toBe("a@10");
    expect(versionOf(objects.current("shop/b", at("b", "10")))).toBe("b@13");
    objects.clear();
    expect(versionOf(objects.current("shop/b", at("b", "10")))).toBe("b@10");
    expect(versionOf(objects.current("shop/c", at("c", "10")))).toBe("c@10");
    expect(objects.view([], "shop", all)).toEqual([]);
  });
});

describe("WrittenObjects.observe", () => {
  type Step = ["write", string] | ["delete"];
  it.each<[string, Step[], string | undefined, boolean, boolean, string]>([
    // case, what we did to shop/a, event version, delete event?, expected echo, current(a) against the cache at 10
    ["never written by us: a change to act on", [], "11", false, false, "a@10"],
    [
      "an older version than our write: nothing new, our write still stands",
      [["write", "12"]],
      "11",
      false,
      true,
      "a@12",
    ],
    [
      "our write coming back: an echo, and the cache takes over",
      [["write", "12"]],
      "12",
      false,
      true,
      "a@10",
    ],
    ["changed after our write: act on it", [["write", "12"]], "13", false, false, "a@10"],
    ["an opaque version equal to ours: an echo", [["write", "v2"]], "v2", false, true, "a@10"],
    [
      "an opaque version other than ours: act on it, the cache wins",
      [["write", "v2"]],
      "v1",
      false,
      false,
      "a@10",
    ],
    ["our delete coming back: an echo", [["delete"]], "10", true, true, "a@10"],
    ["deleted by somebody else: act on it (recreate)", [], "10", true, false, "a@10"],
    [
      "deleted by somebody else after our write: act on it, our write no longer stands",
      [["write", "12"]],
      "12",
      true,
      false,
      "a@10",
    ],
    [
      "an update of an object we deleted: act on it, still hidden until the delete comes",
      [["delete"]],
      "11",
      false,
      false,
      "gone",
    ],
  ])("%s", (_case, steps, version, deleted, echo, currentAfter) => {
    const objects = new WrittenObjects<Thing>();
    for (const step of steps) {
      if (step[0] === "write") objects.recordWrite(at("a", step[1]));
      else objects.recordDelete({ namespace: "shop", name: "a" });
    }
    expect(objects.observe(at("a", version), deleted)).toBe(echo);
    expect(versionOf(objects.current("shop/a", at("a", "10")))).toBe(currentAfter);
  });

  it("tells an echo of our own write or delete apart from a change made by somebody else", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordWrite(at("a", "12"));
    objects.recordWrite(at("b", "20"));
    objects.recordDelete({ namespace: "shop", name: "gone" });
    expect(objects.observe(at("a", "11"), false)).toBe(true); // older than ours: nothing new
    expect(objects.observe(at("a", "12"), false)).toBe(true); // our write coming back
    expect(objects.observe(at("a", "13"), false)).toBe(false); // changed after the echo: reconcile
    expect(objects.observe(at("b", "21"), false)).toBe(false); // changed by somebody else
    expect(objects.observe(at("gone", "9"), true)).toBe(true); // our delete coming back
    expect(objects.observe(at("c", "5"), true)).toBe(false); // deleted by somebody else: recreate it
    expect(objects.observe(at("d", "5"), false)).toBe(false); // never written by us
  });

  it("lets our write yield once the informer shows any object at its version or newer", () => {
    // Created and deleted while the informer re-listed: no event ever names it, so only progress can end it.
    const objects = new WrittenObjects<Thing>();
    objects.recordWrite(at("a", "12"));
    objects.observe(at("b", "11"), false);
    expect(versionOf(objects.current("shop/a", undefined))).toBe("a@12");
    expect(versions(objects.view([], "shop", all))).toEqual(["a@12"]);
    objects.observe(at("b", "12"), false);
    expect(objects.current("shop/a", undefined)).toBeUndefined();
    expect(objects.view([], "shop", all)).toEqual([]);
    // A later write of it stands again, and its echo is still told apart.
    objects.recordWrite(at("a", "30"));
    expect(versionOf(objects.current("shop/a", undefined))).toBe("a@30");
    expect(objects.observe(at("a", "30"), false)).toBe(true);
  });
});

describe("WrittenObjects.view", () => {
  it("shows our writes until the informer has caught up with them", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordWrite(at("a", "12"));
    objects.recordWrite(at("new", "13"));
    expect(versions(objects.view([at("a", "10")], "shop", all))).toEqual(["a@12", "new@13"]);
    objects.observe(at("a", "11"), false); // an older event arriving late changes nothing
    expect(versions(objects.view([at("a", "11")], "shop", all))).toEqual(["a@12", "new@13"]);
    objects.observe(at("a", "12"), false);
    objects.observe(at("new", "14"), false); // somebody else changed it after us: the informer wins
    expect(versions(objects.view([at("a", "12"), at("new", "14")], "shop", all))).toEqual(["a@12", "new@14"]);
  });

  it("hides objects we deleted until the informer sees the delete, and only in their namespace", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordDelete({ namespace: "shop", name: "a" });
    expect(versions(objects.view([at("a", "10"), at("b", "10")], "shop", all))).toEqual(["b@10"]);
    objects.observe(at("a", "10"), true);
    expect(versions(objects.view([at("a", "15")], "shop", all))).toEqual(["a@15"]);
    objects.recordWrite(at("x", "30", "other"));
    expect(versions(objects.view([], "shop", all))).toEqual([]);
    expect(versions(objects.view([], "other", all))).toEqual(["x@30"]);
  });

  it("keeps a cached copy that is not certainly older than our write, like current", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordWrite(at("a", "12"));
    objects.recordWrite(at("b", "12"));
    objects.recordWrite(at("c", "v1"));
    const cached = [at("a", "13"), at("b", "11"), at("c", "10")];
    expect(versions(objects.view(cached, "shop", all))).toEqual(["a@13", "b@12", "c@10"]);
  });

  it("lays over only the written objects that match, and never changes the cached ones", () => {
    const objects = new WrittenObjects<Thing>();
    objects.recordWrite({ ...at("a", "12"), value: "mine" });
    objects.recordWrite({ ...at("b", "13"), value: "other-swh" });
    const cached = [Object.freeze({ ...at("a", "10"), value: "cached" })];
    const view = objects.view(cached, "shop", (o) => o.value !== "other-swh");
    expect(view.map((o) => o.value)).toEqual(["mine"]);
    expect(cached[0]?.value).toBe("cached");
  });
});

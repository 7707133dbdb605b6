/**
 * The product's images as the release builds them (deploy/scripts/build-images.sh: buildah FROM scratch, from the
 * app bundles already built), for a real node to run. Nothing is pulled or pushed.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT } from "./repo-paths.js";

/** Builds the controller and agent images into the local image store; returns their names (`localhost/…:<version>`). */
export function buildProductImages(): string[] {
  const out = execFileSync("bash", [join(REPO_ROOT, "deploy/scripts/build-images.sh"), "--no-bundle"], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  // One line per image: "<image> <size in bytes>".
  return out
    .trim()
    .split("\n")
    .map((line) => `localhost/${line.split(" ")[0]}`);
}

/** Slices as the controller's index holds them (see @swh/slice-writer's tests). */
export * from "../../../packages/slice-writer/test/indexed.js";

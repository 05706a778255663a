export * from "./lending-world.ts";
export * from "./litesvm-harness.ts";
export * from "./request-world.ts";

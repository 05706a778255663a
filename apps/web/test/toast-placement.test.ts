import { describe, expect, it } from "vitest";
import { placeClearOf } from "../src/toasts/toaster.tsx";

const rect = (left: number, top: number, width: number, height: number) =>
  ({ left, top, right: left + width, bottom: top + height, width, height }) as DOMRect;

describe("toasts never cover the control in use", () => {
  it("stays where it is when clear of the focused control", () => {
    expect(placeClearOf(rect(16, 700, 330, 80), rect(600, 700, 120, 40), true, 800)).toBeNull();
  });

  it("lifts a bottom toaster just above the control, or drops a top one just below it", () => {
    expect(placeClearOf(rect(16, 700, 330, 80), rect(100, 720, 120, 40), true, 800)).toEqual({
      bottom: "88px",
    });
    expect(placeClearOf(rect(8, 8, 344, 70), rect(20, 40, 120, 40), false, 740)).toEqual({ top: "88px" });
  });
});

import { describe, expect, it } from "vitest";
import { placeClearOf, placeClearOfAll } from "../src/toasts/toaster.tsx";

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

describe("toasts keep clear of the form in use where the screen leaves room", () => {
  it("lifts a phone's bottom toaster above the form's controls on screen, not just the focused one", () => {
    // a 360 x 740 phone: slider at 420-440, terms 450-560, submit 600-640; the toaster is 90 px tall at the bottom
    const controls = [rect(20, 600, 320, 40), rect(20, 420, 320, 20), rect(20, 450, 320, 110)];
    expect(placeClearOfAll(rect(8, 634, 344, 90), controls, true, 740, 72)).toEqual({ bottom: "328px" });
  });

  it("stays at its edge when nothing in its columns is under it, and falls back to the focused control alone", () => {
    expect(placeClearOfAll(rect(934, 794, 330, 90), [rect(128, 300, 440, 500)], true, 900)).toBeNull();
    const full = [rect(20, 600, 320, 40), rect(20, 60, 320, 530)];
    expect(placeClearOfAll(rect(8, 634, 344, 90), full, true, 740, 72)).toEqual({ bottom: "148px" });
  });
});

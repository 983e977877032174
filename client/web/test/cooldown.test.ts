import { describe, expect, it } from "vitest";
import { cooldownText } from "../src/cooldown";

describe("the rated cooldown's message", () => {
  it("says minutes up to an hour and a half, rounded up", () => {
    expect(cooldownText(600, "en")).toBe("You left rated matches too often: rated play opens again in 10 min. Casual play is open.");
    expect(cooldownText(599, "en")).toContain(" 10 min.");
    expect(cooldownText(1, "en")).toContain(" 1 min.");
    expect(cooldownText(0, "en")).toContain(" 1 min.");
    expect(cooldownText(90 * 60, "en")).toContain(" 90 min.");
  });

  it("says whole hours beyond, rounded up (the 4.5 h and 48 h cooldowns)", () => {
    expect(cooldownText(90 * 60 + 1, "en")).toContain(" 2 h.");
    expect(cooldownText(16_200, "en")).toContain(" 5 h.");
    expect(cooldownText(48 * 3600, "en")).toBe("You left rated matches too often: rated play opens again in 48 h. Casual play is open.");
    expect(cooldownText(48 * 3600, "ar")).toBe("غادرت مباريات مصنّفة كثيرًا: يعود اللعب المصنّف بعد 48 ساعة. اللعب الودي متاح.");
    expect(cooldownText(48 * 3600, "ru")).toContain("через 48 ч.");
  });
});

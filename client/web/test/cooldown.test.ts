import { describe, expect, it } from "vitest";
import { cooldownText } from "../src/cooldown";

describe("the rated cooldown's message", () => {
  it("says minutes up to an hour and a half, rounded up", () => {
    expect(cooldownText(600, "en")).toBe("You left rated matches too often: rated play opens again in 10 minutes. Casual play is open.");
    expect(cooldownText(599, "en")).toContain(" 10 minutes.");
    expect(cooldownText(1, "en")).toContain(" in 1 minute.");
    expect(cooldownText(0, "en")).toContain(" in 1 minute.");
    expect(cooldownText(90 * 60, "en")).toContain(" 90 minutes.");
  });

  it("says whole hours beyond, rounded up (the 4.5 h and 48 h cooldowns)", () => {
    expect(cooldownText(90 * 60 + 1, "en")).toContain(" 2 hours.");
    expect(cooldownText(16_200, "en")).toContain(" 5 hours.");
    expect(cooldownText(48 * 3600, "en")).toBe("You left rated matches too often: rated play opens again in 48 hours. Casual play is open.");
    expect(cooldownText(48 * 3600, "ar")).toBe("غادرت مباريات مصنّفة كثيرًا: يعود اللعب المصنّف بعد 48 ساعة. اللعب الودي متاح.");
    expect(cooldownText(48 * 3600, "ru")).toContain("через 48 ч.");
  });

  it("says the count in each language's own plural forms, in Latin digits", () => {
    expect(cooldownText(600, "ar")).toBe("غادرت مباريات مصنّفة كثيرًا: يعود اللعب المصنّف بعد 10 دقائق. اللعب الودي متاح.");
    expect(cooldownText(60, "ar")).toContain("بعد دقيقة.");
    expect(cooldownText(120, "ar")).toContain("بعد دقيقتان.");
    expect(cooldownText(11 * 60, "ar")).toContain("بعد 11 دقيقة.");
    expect(cooldownText(3 * 3600, "ar")).toContain("بعد 3 ساعات.");
    expect(cooldownText(21 * 60, "ru")).toContain("через 21 мин.");
    expect(cooldownText(600, "tr")).toContain("puanlı oyun 10 dakika sonra");
    expect(cooldownText(600, "ka")).toContain("გაიხსნება 10 წუთის შემდეგ.");
    expect(cooldownText(48 * 3600, "ka")).toContain("გაიხსნება 48 საათის შემდეგ.");
  });
});

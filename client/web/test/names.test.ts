import { describe, expect, it } from "vitest";
import { setLang } from "../src/i18n";
import { aiName, displayName, isDefaultName, keptName, nameFromParts, seatName } from "../src/names";
import { parseRoute, routePath } from "../src/routes";
import { handsByMatch } from "../src/my-hands";
import { Persist } from "../src/storage";
import { MemoryStorage } from "./memory-storage";

describe("names the server makes", () => {
  it("draws a default name and an AI seat in the page's language", () => {
    setLang("ru");
    expect(displayName("Player y_cVv")).toBe("Игрок y_cVv");
    expect(displayName("AI (easy)")).toBe("ИИ · Лёгкий");
    expect(displayName("Ada", "hard")).toBe("ИИ · Сложный");
    setLang("en");
    expect(displayName("AI (hard)")).toBe(aiName("hard"));
    expect(aiName("hard")).toBe("AI · Hard");
  });

  it("leaves a person's own name as given", () => {
    setLang("ar");
    expect(displayName("Player One")).toBe("Player One");
    expect(displayName("AI (best)")).toBe("AI (best)");
    expect(isDefaultName("Player y_cVv")).toBe(true);
    expect(isDefaultName("Players y_cVv")).toBe(false);
    setLang("en");
  });
});

describe("names from the parts the server sends", () => {
  it("draws a default name from its id and an AI seat from its level, with no English left", () => {
    setLang("ru");
    expect(nameFromParts({ name: "Player y_cVv", name_id: "y_cVv", ai: null })).toBe("Игрок y_cVv");
    expect(nameFromParts({ name: "AI (hard)", name_id: null, ai: "hard" })).toBe("ИИ · Сложный");
    setLang("ar");
    expect(seatName({ name: "Player BNdCU", name_id: "BNdCU", ai: null })).toBe("اللاعب \u2066BNdCU\u2069");
    setLang("en");
  });

  it("shows a chosen name as given, even one shaped like a server's", () => {
    setLang("tr");
    // the server said it is chosen: the shape does not make it a default name
    expect(nameFromParts({ name: "Player zzzzz", name_id: null, ai: null })).toBe("Player zzzzz");
    expect(isDefaultName("Player zzzzz", null)).toBe(false);
    expect(isDefaultName("Zoë", "abcde")).toBe(true);
    setLang("en");
  });

  it("falls back to the shape for records kept before the parts", () => {
    setLang("ka");
    expect(seatName(undefined, "Player y_cVv")).toBe("მოთამაშე y_cVv");
    expect(seatName({ name: "AI (easy)", ai: null }, null)).toBe(aiName("easy"));
    expect(keptName("Player y_cVv", null, undefined)).toBe("მოთამაშე y_cVv");
    expect(keptName("Player y_cVv", null, null)).toBe("Player y_cVv");
    setLang("en");
  });
});

describe("a whole match's replay address", () => {
  it("keeps ?match=1", () => {
    expect(parseRoute("/replay/r1-2", "?match=1")).toEqual({ name: "replay", id: "r1-2", match: true });
    expect(parseRoute("/replay/r1-2", "")).toEqual({ name: "replay", id: "r1-2" });
    expect(routePath({ name: "replay", id: "r1-2", match: true })).toBe("/replay/r1-2?match=1");
  });
});

describe("a profile's address", () => {
  it("is /@/HANDLE, any script, encoded", () => {
    expect(parseRoute("/@/%D0%90%D0%B4%D0%B0_1")).toEqual({ name: "profile", handle: "Ада_1" });
    expect(routePath({ name: "profile", handle: "Ада_1" })).toBe("/@/%D0%90%D0%B4%D0%B0_1");
    expect(parseRoute("/@/me")).toEqual({ name: "profile", handle: "me" });
    expect(parseRoute("/leaderboard/")).toEqual({ name: "leaderboard" });
    expect(routePath({ name: "leaderboard" })).toBe("/leaderboard");
    expect(parseRoute("/@/%E0%A4%A")).toEqual({ name: "lobby" });
  });
});

describe("this browser's matches and hands", () => {
  it("keeps each match once, with when it was first seen, and forgets it", () => {
    const persist = new Persist(new MemoryStorage());
    persist.keepMatch({ room: "a", mode: "quick", opponent: "Ada", opponentAi: null, since: 1 });
    persist.keepMatch({ room: "b", mode: "ai", opponent: "AI (easy)", opponentAi: "easy", since: 2 });
    persist.keepMatch({ room: "a", mode: "quick", opponent: "Ada", opponentAi: null, since: 3 });
    expect(persist.matches.map((match) => [match.room, match.since])).toEqual([["a", 1], ["b", 2]]);
    persist.forgetMatch("a");
    expect(persist.matches.map((match) => match.room)).toEqual(["b"]);
  });

  it("lists the server's finished hands of the player by match, each once, the newest match first", () => {
    const hand = (room: string, number: number, at: number) => ({ id: `${room}-${number}`, room, players: ["Ada", "Bea"], result: { kind: "knock", winner: 0, points: 7, hand: number }, finished_at: at });
    const matches = handsByMatch([hand("b", 2, 30), hand("a", 1, 10), hand("b", 1, 20), hand("b", 2, 30), { room: "c" }]);
    expect(matches.map((match) => [match.room, match.hands.map((listed) => listed.id), match.latest])).toEqual([
      ["b", ["b-1", "b-2"], 30],
      ["a", ["a-1"], 10],
    ]);
  });
});

// The golden fixtures of protocol/fixtures/ (shared with the Python tests), both ways:
// decoding each .msgpack file gives the manifest's value with the same key order, and
// encoding the manifest's value gives the file's bytes.

import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLIENT_TYPES, SERVER_TYPES, decodeAny, decodeServerMessage, encodeValue } from "../src/protocol";

const DIR = join(__dirname, "..", "..", "..", "protocol", "fixtures");
const manifest = JSON.parse(readFileSync(join(DIR, "manifest.json"), "utf8")) as Record<string, unknown>;
const files = readdirSync(DIR).filter((name) => name.endsWith(".msgpack")).sort();

/** JSON with keys in their order: equal strings mean equal values and equal key order. */
function ordered(value: unknown): string {
  return JSON.stringify(value);
}

describe("golden fixtures", () => {
  it("the manifest lists every .msgpack file and nothing else", () => {
    expect(Object.keys(manifest).sort()).toEqual(files);
    expect(files.length).toBeGreaterThan(30);
  });

  for (const name of files) {
    const bytes = new Uint8Array(readFileSync(join(DIR, name)));
    const expected = manifest[name];

    it(`decodes ${name} to the manifest value, keys in order`, () => {
      const decoded = decodeAny(bytes);
      expect(decoded).toEqual(expected);
      expect(ordered(decoded)).toBe(ordered(expected));
    });

    it(`encodes the manifest value of ${name} to the file's bytes`, () => {
      expect(Buffer.from(encodeValue(expected)).toString("hex")).toBe(Buffer.from(bytes).toString("hex"));
    });
  }

  it("reads every server message type of the fixtures as a server message", () => {
    const serverTypes = new Set<string>(SERVER_TYPES);
    let seen = 0;
    for (const name of files) {
      const value = manifest[name] as { t: string };
      if (!serverTypes.has(value.t)) continue;
      const message = decodeServerMessage(new Uint8Array(readFileSync(join(DIR, name))));
      expect(message.t).toBe(value.t);
      seen += 1;
    }
    expect(seen).toBeGreaterThanOrEqual(serverTypes.size);
  });

  it("covers every message type the generated messages.ts declares, and no other", () => {
    const tags = new Set(Object.values(manifest).map((value) => (value as { t: string }).t));
    expect([...tags].sort()).toEqual([...CLIENT_TYPES, ...SERVER_TYPES].sort());
  });

  it("refuses a client message type and anything that is not one map", () => {
    expect(() => decodeServerMessage(encodeValue({ t: "hello", id: 1, version: "1.0" }))).toThrow(/unknown message type/);
    expect(() => decodeServerMessage(encodeValue([1, 2]))).toThrow(/one MessagePack map/);
    expect(() => decodeServerMessage(encodeValue({ id: 1 }))).toThrow(/type tag/);
    expect(() => decodeServerMessage(new Uint8Array([0xc1]))).toThrow();
  });
});

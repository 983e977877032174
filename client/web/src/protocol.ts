// The wire protocol (docs/protocol.md): one MessagePack map per binary websocket frame.
// This module is the only one that knows about MessagePack. The message types come from
// messages.ts and wire-types.ts, generated from protocol/messages.py (the one declaration of
// every message); the views are view-types.ts.

import { decode, encode } from "@msgpack/msgpack";
import { SERVER_TYPES, type ClientMessage, type ServerMessage } from "./messages";

export type * from "./messages";
export type * from "./view-types";
export type * from "./wire-types";
export { CLIENT_TYPES, SERVER_TYPES } from "./messages";
export { PROTOCOL_VERSION } from "./wire-types";

export const CLIENT_NAME = "web/0.1";

export type Plain = null | boolean | number | string | Uint8Array | Plain[] | { [key: string]: Plain };
export type Fields = Record<string, unknown>;

/** The type tag of a request: every client message but ping (the session's own). */
export type RequestType = Exclude<ClientMessage["t"], "ping">;
/** The fields of request `T` that the caller gives (the session adds `t` and `id`). */
export type RequestFields<T extends ClientMessage["t"]> = Omit<Extract<ClientMessage, { t: T }>, "t" | "id">;

export class DecodeError extends Error {}

const SERVER_TAGS: ReadonlySet<string> = new Set(SERVER_TYPES);

/** Encode one message: `t` first, then the fields in the order given; absent (undefined)
 * fields are left out, as the canonical encoding asks. */
export function encodeMessage(t: string, fields: Fields = {}): Uint8Array {
  const message: Fields = { t };
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined && key !== "t") message[key] = value;
  }
  return encodeValue(message);
}

/** Encode any plain value (a whole message map included) with the smallest forms. */
export function encodeValue(value: unknown): Uint8Array {
  return encode(value, { ignoreUndefined: true });
}

/** Decode any one MessagePack value (no trailing bytes). */
export function decodeValue(data: ArrayBuffer | Uint8Array): unknown {
  const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
  return decode(bytes);
}

/** Decode a frame into a message of any type (the fixtures hold both directions). */
export function decodeAny(data: ArrayBuffer | Uint8Array): Fields & { t: string } {
  let value: unknown;
  try {
    value = decodeValue(data);
  } catch (error) {
    throw new DecodeError(`not one MessagePack value: ${String(error)}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value) || value instanceof Uint8Array) {
    throw new DecodeError("a frame is one MessagePack map");
  }
  const map = value as Fields;
  if (typeof map.t !== "string") throw new DecodeError("the frame has no type tag t");
  return map as Fields & { t: string };
}

/** Decode a frame the server sent; anything else is a DecodeError. */
export function decodeServerMessage(data: ArrayBuffer | Uint8Array): ServerMessage {
  const map = decodeAny(data);
  if (!SERVER_TAGS.has(map.t)) throw new DecodeError(`unknown message type ${map.t}`);
  if (map.t === "update") {
    if (typeof map.room !== "string" || typeof map.seq !== "number" || !Array.isArray(map.events)) {
      throw new DecodeError("an update has room, seq and events");
    }
  }
  if (map.t === "said" && (typeof map.room !== "string" || typeof map.seat !== "number" || typeof map.phrase !== "string")) {
    throw new DecodeError("a said has room, seat and phrase");
  }
  if (map.t === "snapshot" && (typeof map.room !== "string" || typeof map.seq !== "number")) {
    throw new DecodeError("a snapshot has room and seq");
  }
  return map as unknown as ServerMessage;
}

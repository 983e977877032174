// The connection to the server: hello (with the saved token), requests with unique ids,
// acks and errors, the followed room's updates, pings, and reconnecting by itself.
//
// - Request ids are a random prefix and a counter that continues across reconnects, so the
//   server never sees an id twice (it refuses a replayed `act`).
// - After every (re)connect: `hello` with the token, then `resume {room, last_seq}` for the
//   followed room. Requests in flight when the socket drops fail with ConnectionLost.
// - `reconnect` from the server: wait retry_ms, then connect again. `bye`: come back later
//   for idle/going-away/internal/rate limits; stay offline for anything else.

import {
  CLIENT_NAME,
  PROTOCOL_VERSION,
  decodeServerMessage,
  encodeMessage,
  type Action,
  type ErrorMsg,
  type Fields,
  type NudgeMsg,
  type RequestFields,
  type RequestId,
  type RequestType,
  type SaidMsg,
  type ServerMessage,
} from "./protocol";
import { AI_LEVELS } from "./names";
import { RoomTracker, type Applied } from "./room-state";
import type { Persist, SavedRoom } from "./storage";
import type { AILevel } from "./wire-types";

export type ConnStatus = "connecting" | "online" | "reconnecting" | "offline";

export interface SocketLike {
  binaryType: string;
  readyState: number;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

export class RequestError extends Error {
  readonly code: string;
  readonly detail: Record<string, unknown>;
  constructor(code: string, message: string, detail?: Record<string, unknown>) {
    super(`${code}: ${message}`);
    this.code = code;
    this.detail = detail ?? {};
  }
}

export class ConnectionLost extends Error {
  constructor() {
    super("the connection was lost");
  }
}

export interface SessionEvents {
  status?: (status: ConnStatus) => void;
  /** Updates (or a snapshot) were applied to the followed room. */
  change?: (tracker: RoomTracker, applied: Applied[]) => void;
  roomAssigned?: (room: string, seat: number) => void;
  /** The followed room is gone (finished and expired, or never existed). */
  roomGone?: (room: string, code: string) => void;
  /** A notice worth showing: a bye, an unsupported version, a rate limit. */
  notice?: (code: string, message: string) => void;
  /** The other player of a room sent a quick message (docs/protocol.md, said). */
  said?: (message: SaidMsg) => void;
  /** Something of the player's changed on the server: read it again (docs/protocol.md, nudge). */
  nudge?: (about: NudgeMsg["about"]) => void;
  /** Hello was acknowledged (first time and after every reconnect). */
  ready?: (playerId: string, name: string) => void;
}

export interface SessionOptions {
  url: string;
  persist: Persist;
  socket?: SocketFactory;
  name?: string | null;
  random?: () => number;
  pingEveryMs?: number;
  pongTimeoutMs?: number;
}

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

const RETRY_BYE = new Set(["idle_timeout", "going_away", "internal"]);
/** The store could not say whether a request was applied: send it again, same id (the
 * server answers a retry of an applied `act` with `duplicate_request`, and one of an applied
 * `create_room` with the room it made). */
const RETRY_SAME_ID = new Set(["not_replicated", "store_unavailable"]);
const SAME_ID_RETRIES = 5;
const OPEN = 1;

/** Each AI level's rating from the hello ack's `ai_ratings`: the levels given a whole number. */
export function levelRatings(value: unknown): Partial<Record<AILevel, number>> {
  const ratings: Partial<Record<AILevel, number>> = {};
  if (typeof value !== "object" || value === null) return ratings;
  for (const level of AI_LEVELS) {
    const rating: unknown = (value as Record<string, unknown>)[level];
    if (typeof rating === "number" && Number.isInteger(rating)) ratings[level] = rating;
  }
  return ratings;
}

export function backoffDelay(attempt: number, random: () => number): number {
  const base = Math.min(10_000, 500 * 2 ** Math.min(attempt, 5));
  return Math.round(base * (0.5 + random() / 2));
}

export class Session {
  status: ConnStatus = "offline";
  playerId: string | null = null;
  name: string | null;
  /** What the server said the name is made of: the id of its default name, null for a chosen
   * one, undefined until it said (an older server). */
  nameId: string | null | undefined = undefined;
  /** The turn clock the server gives a room between people that asks for none (and every
   * quick match), from the hello ack; null until it is known. */
  defaultTurnSeconds: number | null = null;
  /** How long a person of a room between people may be away before the other may claim the
   * win (the hello ack's `away_grace`); null until it is known. */
  awayGrace: number | null = null;
  /** Each AI level's rating on the players' scale (the hello ack's `ai_ratings`, from the
   * league of bench/league.py); empty until it is known. */
  aiRatings: Partial<Record<AILevel, number>> = {};
  tracker: RoomTracker | null = null;
  /** How many reconnects were scheduled since the last successful hello. */
  attempts = 0;
  /** Every socket opened (the first one included): a count for tests and the status line. */
  connects = 0;

  private readonly opts: SessionOptions;
  private readonly random: () => number;
  private readonly prefix: string;
  private counter = 0;
  private socket: SocketLike | null = null;
  private authenticated = false;
  private stopped = true;
  private pending = new Map<RequestId, Pending>();
  private waiters: (() => void)[] = [];
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private awaitingPong: RequestId | null = null;
  private nextDelay: number | null = null;
  private resuming = false;
  private listeners: SessionEvents[] = [];
  /** The room the page showed last, while it shows none (the lobby): following another room
   * then tells the server that this one is left (`unfollow`). */
  private leftRoom: string | null = null;

  constructor(opts: SessionOptions) {
    this.opts = opts;
    this.random = opts.random ?? Math.random;
    this.name = opts.name ?? opts.persist.name;
    this.prefix = Math.floor(this.random() * 36 ** 6)
      .toString(36)
      .padStart(6, "0");
  }

  on(events: SessionEvents): () => void {
    this.listeners.push(events);
    return () => {
      this.listeners = this.listeners.filter((item) => item !== events);
    };
  }

  private emit<K extends keyof SessionEvents>(key: K, ...args: Parameters<NonNullable<SessionEvents[K]>>): void {
    for (const listener of this.listeners) {
      const fn = listener[key] as ((...a: unknown[]) => void) | undefined;
      fn?.(...args);
    }
  }

  // --- lifecycle -------------------------------------------------------------------------------

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.open();
  }

  stop(): void {
    this.stopped = true;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      this.detach(socket);
      socket.close(1000);
    }
    this.lost();
    this.setStatus("offline");
  }

  private setStatus(status: ConnStatus): void {
    if (this.status === status) return;
    this.status = status;
    this.emit("status", status);
  }

  private open(): void {
    this.retryTimer = null;
    if (this.stopped) return;
    this.setStatus(this.connects === 0 ? "connecting" : "reconnecting");
    this.connects += 1;
    const factory: SocketFactory =
      this.opts.socket ?? ((url) => new WebSocket(url) as unknown as SocketLike);
    let socket: SocketLike;
    try {
      socket = factory(this.opts.url);
    } catch {
      this.scheduleReconnect();
      return;
    }
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    socket.onopen = () => this.sendHello();
    socket.onmessage = (event) => this.onFrame(event.data);
    socket.onerror = () => undefined; // onclose follows and handles it
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.dropped();
    };
  }

  private detach(socket: SocketLike): void {
    socket.onopen = null;
    socket.onmessage = null;
    socket.onclose = null;
    socket.onerror = null;
  }

  private clearTimers(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.retryTimer = null;
    this.pingTimer = null;
    this.awaitingPong = null;
  }

  /** Requests in flight fail; nobody is authenticated on a closed socket. */
  private lost(): void {
    this.authenticated = false;
    this.resuming = false;
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const item of pending) item.reject(new ConnectionLost());
  }

  private dropped(): void {
    this.clearTimers();
    this.lost();
    if (this.stopped) {
      this.setStatus("offline");
      return;
    }
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.retryTimer !== null) return;
    const delay = this.nextDelay ?? backoffDelay(this.attempts, this.random);
    this.nextDelay = null;
    this.attempts += 1;
    this.setStatus("reconnecting");
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  /** Close the socket now and come back after `delayMs` (the server's `reconnect`). */
  private reconnectAfter(delayMs: number): void {
    this.nextDelay = Math.max(0, delayMs);
    const socket = this.socket;
    if (socket) {
      this.socket = null;
      this.detach(socket);
      socket.close(1000);
    }
    this.dropped();
  }

  // --- frames ------------------------------------------------------------------------------------

  private send(t: string, fields: Fields): boolean {
    const socket = this.socket;
    if (!socket || socket.readyState !== OPEN) return false;
    socket.send(encodeMessage(t, fields));
    return true;
  }

  private nextId(): string {
    this.counter += 1;
    return `${this.prefix}-${this.counter}`;
  }

  private raw(t: string, fields: Fields, id: RequestId = this.nextId()): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (!this.send(t, { id, ...fields })) {
        this.pending.delete(id);
        reject(new ConnectionLost());
      }
    });
  }

  private sendHello(): void {
    const token = this.opts.persist.token;
    const fields: Fields = { version: PROTOCOL_VERSION, token: token ?? undefined, client: CLIENT_NAME };
    if (!token && this.name) fields.name = this.name;
    this.raw("hello", fields).then(
      (result) => this.helloDone(result),
      (error: Error) => {
        if (error instanceof RequestError && error.code === "bad_token") {
          // an unknown token (the server's data was reset): start as a new player
          this.opts.persist.token = null;
          this.opts.persist.handle = null;
          this.opts.persist.room = null;
          this.tracker = null;
          this.emit("notice", "bad_token", error.message);
          this.sendHello();
        } else if (error instanceof RequestError) {
          this.emit("notice", error.code, error.message);
          this.stopped = true;
          this.socket?.close(1000);
          this.setStatus("offline");
        }
      },
    );
  }

  private helloDone(result: Record<string, unknown>): void {
    this.authenticated = true;
    this.attempts = 0;
    this.opts.persist.handle = typeof result.handle === "string" ? result.handle : null;
    this.playerId = String(result.player_id ?? "");
    this.name = String(result.name ?? "");
    this.setNameId(result);
    if (typeof result.turn_seconds === "number") this.defaultTurnSeconds = result.turn_seconds;
    if (typeof result.away_grace === "number") this.awayGrace = result.away_grace;
    this.aiRatings = levelRatings(result.ai_ratings);
    if (typeof result.token === "string") this.opts.persist.token = result.token;
    this.opts.persist.name = this.name;
    this.startPings();
    this.setStatus("online");
    this.emit("ready", this.playerId, this.name);
    if (this.tracker) void this.resume();
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private startPings(): void {
    const every = this.opts.pingEveryMs ?? 20_000;
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      if (this.awaitingPong !== null) {
        // the previous ping was never answered: the socket is dead, start again
        this.reconnectAfter(0);
        return;
      }
      const id = this.nextId();
      if (this.send("ping", { id })) this.awaitingPong = id;
    }, every);
  }

  private onFrame(data: unknown): void {
    let message: ServerMessage;
    try {
      message = decodeServerMessage(data as ArrayBuffer);
    } catch {
      return; // not ours to understand; the protocol says to ignore what we cannot read
    }
    switch (message.t) {
      case "ack": {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        pending?.resolve(message.result ?? {});
        break;
      }
      case "error":
        this.onError(message);
        break;
      case "pong":
        if (message.id === this.awaitingPong) this.awaitingPong = null;
        break;
      case "update": {
        const tracker = this.tracker;
        if (!tracker || tracker.room !== message.room) break;
        const applied: Applied[] = [];
        const outcome = tracker.applyUpdate(message, applied);
        if (outcome === "applied") this.changed(tracker, applied);
        else if (outcome === "gap") void this.resume();
        break;
      }
      case "snapshot": {
        const tracker = this.tracker;
        if (!tracker || tracker.room !== message.room) break;
        if (tracker.applySnapshot(message) === "applied") {
          this.changed(tracker, [{ seq: message.seq, events: [], view: message.view }]);
        }
        break;
      }
      case "room_assigned":
        this.emit("roomAssigned", message.room, message.seat);
        break;
      case "said":
        this.emit("said", message);
        break;
      case "nudge":
        this.emit("nudge", message.about);
        break;
      case "reconnect":
        this.emit("notice", "reconnect", message.reason);
        this.reconnectAfter(message.retry_ms);
        break;
      case "bye":
        this.onBye(message.code, message.message);
        break;
      default:
        break;
    }
  }

  private onError(message: ErrorMsg): void {
    if (message.id === null) return;
    const pending = this.pending.get(message.id);
    this.pending.delete(message.id);
    pending?.reject(new RequestError(message.code, message.message, message.detail));
  }

  private onBye(code: string, text: string): void {
    this.emit("notice", code, text);
    if (RETRY_BYE.has(code)) {
      this.nextDelay = null;
    } else if (code === "rate_limited") {
      this.nextDelay = 10_000;
    } else {
      this.stopped = true;
    }
    // the server closes the socket; onclose schedules the reconnect (or stays offline)
  }

  private changed(tracker: RoomTracker, applied: Applied[]): void {
    this.opts.persist.room = savedRoom(tracker);
    this.emit("change", tracker, applied);
  }

  // --- public API ----------------------------------------------------------------------------

  get online(): boolean {
    return this.authenticated;
  }

  /** Keep the `name_id` of a hello or set_name ack (when the server sends one). */
  setNameId(result: Record<string, unknown>): void {
    if (!("name_id" in result)) return;
    this.nameId = typeof result.name_id === "string" ? result.name_id : null;
  }

  /** Resolves once hello is acknowledged (at once when it already is). */
  ready(): Promise<void> {
    if (this.authenticated) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Send a request once the session is authenticated; resolves with the ack's result. The
   * fields are those protocol/messages.py declares for `t` (messages.ts): a request without
   * required fields may leave them out. */
  async request<T extends RequestType>(
    t: T,
    ...fields: object extends RequestFields<T> ? [RequestFields<T>?] : [RequestFields<T>]
  ): Promise<Record<string, unknown>> {
    await this.ready();
    return this.raw(t, fields[0] ?? {});
  }

  /** Follow a room: its updates are applied to the tracker (and it is resumed after every
   * reconnect). `resume` asks the server for what the tracker has not seen yet. */
  follow(tracker: RoomTracker, resume: boolean): void {
    const previous = this.tracker?.room ?? this.leftRoom;
    this.leftRoom = null;
    // the room the page showed before is left for this one: its seat (if ours) shows away
    // until we come back to it (resume)
    if (previous && previous !== tracker.room) void this.request("unfollow", { room: previous }).catch(() => undefined);
    this.tracker = tracker;
    this.opts.persist.room = savedRoom(tracker);
    if (resume && this.authenticated) void this.resume();
  }

  unfollow(): void {
    const tracker = this.tracker;
    if (tracker && tracker.view?.seat === null) {
      // a spectator who stops watching is no longer counted among the room's watchers
      void this.request("unfollow", { room: tracker.room }).catch(() => undefined);
    } else if (tracker) {
      this.leftRoom = tracker.room;
    }
    this.tracker = null;
    this.opts.persist.room = null;
  }

  async resume(): Promise<void> {
    const tracker = this.tracker;
    if (!tracker || this.resuming || !this.authenticated) return;
    this.resuming = true;
    try {
      const token = tracker.watchToken ? { watch_token: tracker.watchToken } : {};
      tracker.resuming = true;
      const result = await this.raw("resume", { room: tracker.room, last_seq: tracker.lastSeq, ...token });
      if (typeof result.to_seq === "number") tracker.replayThrough = Math.max(tracker.replayThrough, result.to_seq);
    } catch (error) {
      if (error instanceof RequestError) {
        if (error.code === "stale_sequence") {
          // we are ahead of the server (its data was restored): start over from nothing
          tracker.reset();
          this.resuming = false;
          await this.resume();
          return;
        }
        if (error.code === "not_found" || error.code === "history_gone") {
          if (this.tracker === tracker) this.unfollow();
          this.emit("roomGone", tracker.room, error.code);
        }
      }
    } finally {
      tracker.resuming = false;
      if (this.tracker === tracker) this.resuming = false;
    }
  }

  /** Play a move on the followed room, on the last sequence number seen. */
  act(action: Action): Promise<Record<string, unknown>> {
    const tracker = this.tracker;
    if (!tracker) return Promise.reject(new RequestError("not_a_player", "no room"));
    const fields: Record<string, unknown> = { kind: action.kind };
    if (action.card) fields.card = action.card;
    return this.retrySameId("act", { room: tracker.room, seq: tracker.lastSeq, action: fields }, true);
  }

  /** Open a room (`create_room`); sent again, same id, while the store cannot say whether it
   * was made, so that a retry never makes a second room. */
  createRoom(fields: Fields): Promise<Record<string, unknown>> {
    return this.retrySameId("create_room", fields, false);
  }

  /** A request sent again with its id while the answer is a retryable store error;
   * `duplicateIsDone`: a `duplicate_request` answer to a retry means the first one stood. */
  private async retrySameId(t: string, fields: Fields, duplicateIsDone: boolean): Promise<Record<string, unknown>> {
    await this.ready();
    const id = this.nextId();
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await this.raw(t, fields, id);
      } catch (error) {
        if (duplicateIsDone && attempt > 0 && error instanceof RequestError && error.code === "duplicate_request") {
          void this.resume(); // an earlier attempt was applied: its update is ours to have
          return {};
        }
        if (!(error instanceof RequestError) || !RETRY_SAME_ID.has(error.code) || attempt >= SAME_ID_RETRIES) throw error;
        const wait = Math.min(10_000, Number(error.detail.retry_ms ?? 1000) * 2 ** attempt);
        await new Promise((resolve) => setTimeout(resolve, wait));
        await this.ready();
      }
    }
  }
}

/** What survives a reload of the followed room (its watch token only when it has one). */
function savedRoom(tracker: RoomTracker): SavedRoom {
  const saved: SavedRoom = { room: tracker.room, lastSeq: tracker.lastSeq, view: tracker.view };
  if (tracker.watchToken) saved.watchToken = tracker.watchToken;
  return saved;
}

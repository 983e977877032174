// The session against a fake socket: hello with the saved token, requests and answers,
// updates applied to the followed room, resume after a gap or a reconnect, the server's
// reconnect and bye frames, and what is saved for the next page load.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { decodeAny, encodeMessage, type Fields, type RoomView } from "../src/protocol";
import { RoomTracker } from "../src/room-state";
import { ConnectionLost, RequestError, Session, backoffDelay, levelRatings, type SocketLike } from "../src/session";
import { Persist } from "../src/storage";
import { MemoryStorage } from "./memory-storage";

class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  sent: (Fields & { t: string })[] = [];
  closed = false;
  onopen: ((event: unknown) => void) | null = null;
  onclose: ((event: unknown) => void) | null = null;
  onerror: ((event: unknown) => void) | null = null;
  onmessage: ((event: { data: unknown }) => void) | null = null;

  send(data: Uint8Array): void {
    this.sent.push(decodeAny(data));
  }
  close(): void {
    this.closed = true;
    this.readyState = 3;
  }
  // --- the server's side ---
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  receive(t: string, fields: Fields): void {
    this.onmessage?.({ data: encodeMessage(t, fields) });
  }
  drop(): void {
    this.readyState = 3;
    this.onclose?.({});
  }
  last(t: string): Fields & { t: string } {
    const found = [...this.sent].reverse().find((message) => message.t === t);
    if (!found) throw new Error(`nothing of type ${t} was sent`);
    return found;
  }
}

function roomView(seq: number): RoomView {
  return {
    room: "r1",
    mode: "ai",
    status: "playing",
    seats: [],
    seat: 0,
    turn_seconds: seq,
    turn_deadline: null,
    winner: null,
    rematch: [false, false],
    next_room: null,
    game: null,
  };
}

let sockets: FakeSocket[];
let store: MemoryStorage;
let persist: Persist;

function makeSession(): Session {
  return new Session({
    url: "ws://test/ws",
    persist,
    socket: () => {
      const socket = new FakeSocket();
      sockets.push(socket);
      return socket;
    },
    random: () => 0.5,
    pingEveryMs: 20_000,
  });
}

/** Open the newest socket and acknowledge its hello. */
function connect(token = "tk_new"): FakeSocket {
  const socket = sockets[sockets.length - 1];
  socket.open();
  const hello = socket.last("hello");
  socket.receive("ack", { id: hello.id, result: { player_id: "p-1", name: "Ada", token, protocol: "1.0" } });
  return socket;
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

beforeEach(() => {
  vi.useFakeTimers();
  sockets = [];
  store = new MemoryStorage();
  persist = new Persist(store);
});

afterEach(() => {
  vi.useRealTimers();
});

describe("Session", () => {
  it("hands the other player's quick messages to its listeners", async () => {
    const session = makeSession();
    const heard: unknown[] = [];
    session.on({ said: (message) => heard.push(message) });
    session.start();
    const socket = connect();
    await flush();
    socket.receive("said", { room: "r1", seat: 1, phrase: "good_luck", at: 1764412800123 });
    expect(heard).toEqual([{ t: "said", room: "r1", seat: 1, phrase: "good_luck", at: 1764412800123 }]);
  });

  it("hands a nudge's subject to its listeners", async () => {
    const session = makeSession();
    const nudged: unknown[] = [];
    session.on({ nudge: (about) => nudged.push(about) });
    session.start();
    const socket = connect();
    await flush();
    socket.receive("nudge", { about: "challenges" });
    expect(nudged).toEqual(["challenges"]);
  });

  it("keeps each AI level's rating from the hello ack, and only whole numbers of known levels", async () => {
    const session = makeSession();
    session.start();
    expect(session.aiRatings).toEqual({});
    const socket = sockets[0];
    socket.open();
    const hello = socket.last("hello");
    socket.receive("ack", { id: hello.id, result: { player_id: "p-1", name: "Ada", token: "tk_abc", ai_ratings: { easy: 1330, normal: 1510, hard: 1690 } } });
    await flush();
    expect(session.aiRatings).toEqual({ easy: 1330, normal: 1510, hard: 1690 });
    expect(levelRatings({ easy: 1330.5, normal: "1510", hard: 1690, expert: 2000 })).toEqual({ hard: 1690 });
    expect(levelRatings(null)).toEqual({});
    expect(levelRatings([1, 2, 3])).toEqual({});
  });

  it("says hello with the protocol version and keeps the token it gets", async () => {
    const session = makeSession();
    session.start();
    expect(session.status).toBe("connecting");
    const socket = sockets[0];
    socket.open();
    const hello = socket.last("hello");
    expect(hello.version).toBe("1.2");
    expect(hello.client).toBe("web/0.1");
    expect(hello.token).toBeUndefined();
    socket.receive("ack", { id: hello.id, result: { player_id: "p-1", name: "Ada", token: "tk_abc" } });
    await flush();
    expect(session.status).toBe("online");
    expect(persist.token).toBe("tk_abc");
    expect(persist.name).toBe("Ada");
  });

  it("comes back with the saved token", () => {
    persist.token = "tk_saved";
    const session = makeSession();
    session.start();
    sockets[0].open();
    expect(sockets[0].last("hello").token).toBe("tk_saved");
  });

  it("starts as a new player when the saved token is refused", async () => {
    persist.token = "tk_gone";
    persist.room = { room: "r1", lastSeq: 3, view: null };
    const session = makeSession();
    session.start();
    const socket = sockets[0];
    socket.open();
    socket.receive("error", { id: socket.last("hello").id, code: "bad_token", message: "unknown token" });
    await flush();
    const again = socket.last("hello");
    expect(again.token).toBeUndefined();
    expect(persist.room).toBeNull();
  });

  it("answers requests with their ack or a RequestError, ids never reused", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    await flush();
    const first = session.request("stats");
    const second = session.request("create_room", { mode: "ai", level: "easy" });
    await flush();
    const [stats, create] = socket.sent.slice(-2);
    expect(stats.t).toBe("stats");
    expect(create).toEqual({ t: "create_room", id: create.id, mode: "ai", level: "easy" });
    expect(stats.id).not.toBe(create.id);
    socket.receive("ack", { id: stats.id, result: { wins: 3 } });
    socket.receive("error", { id: create.id, code: "rate_limited", message: "slow down" });
    await expect(first).resolves.toEqual({ wins: 3 });
    await expect(second).rejects.toBeInstanceOf(RequestError);
    const ids = socket.sent.map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("waits for hello before sending a request", async () => {
    const session = makeSession();
    session.start();
    const pending = session.request("lobby");
    await flush();
    const socket = sockets[0];
    socket.open();
    expect(socket.sent.map((message) => message.t)).toEqual(["hello"]);
    socket.receive("ack", { id: socket.last("hello").id, result: { player_id: "p", name: "A", token: "tk" } });
    await flush();
    expect(socket.sent.map((message) => message.t)).toEqual(["hello", "lobby"]);
    socket.receive("ack", { id: socket.last("lobby").id, result: { recent_hands: [] } });
    await expect(pending).resolves.toEqual({ recent_hands: [] });
  });

  it("applies the followed room's updates, saves the number and the view, and acts on it", async () => {
    const session = makeSession();
    const changes: number[] = [];
    session.on({ change: (tracker) => changes.push(tracker.lastSeq) });
    session.start();
    const socket = connect();
    session.follow(new RoomTracker("r1"), false);
    socket.receive("update", { room: "r1", seq: 0, events: [{ type: "room" }], view: null });
    socket.receive("update", { room: "r1", seq: 1, events: [{ type: "deal" }], view: roomView(1) });
    socket.receive("update", { room: "r9", seq: 5, events: [], view: roomView(5) }); // not ours
    expect(changes).toEqual([0, 1]);
    expect(persist.room).toEqual({ room: "r1", lastSeq: 1, view: roomView(1) });
    void session.act({ kind: "discard", card: "QS" });
    await flush();
    const act = socket.last("act");
    expect(act).toEqual({ t: "act", id: act.id, room: "r1", seq: 1, action: { kind: "discard", card: "QS" } });
  });

  it("sends an act again with the same id after a retryable store error; a duplicate then means done", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    session.follow(new RoomTracker("r1"), false);
    socket.receive("update", { room: "r1", seq: 0, events: [{ type: "room" }], view: null });
    socket.receive("update", { room: "r1", seq: 1, events: [{ type: "deal" }], view: roomView(1) });
    const acting = session.act({ kind: "pass" });
    await flush();
    const first = socket.last("act");
    expect(first).toMatchObject({ room: "r1", seq: 1 });
    const resumes = (): number => socket.sent.filter((message) => message.t === "resume").length;
    for (const resume of socket.sent.filter((message) => message.t === "resume")) {
      socket.receive("ack", { id: resume.id, result: { mode: "events", from_seq: 2, to_seq: 1 } });
    }
    await flush();
    const resumed = resumes();
    socket.receive("error", { id: first.id, code: "not_replicated", message: "m", detail: { retry_ms: 1000 } });
    await flush();
    expect(socket.sent.filter((message) => message.t === "act")).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    const second = socket.last("act");
    expect(second).toEqual(first);
    socket.receive("error", { id: second.id, code: "store_unavailable", message: "m", detail: { retry_ms: 1000 } });
    await vi.advanceTimersByTimeAsync(2000);
    const third = socket.last("act");
    expect(third).toEqual(first);
    expect(socket.sent.filter((message) => message.t === "act")).toHaveLength(3);
    socket.receive("error", { id: third.id, code: "duplicate_request", message: "m" });
    await expect(acting).resolves.toEqual({});
    expect(resumes()).toBe(resumed + 1);
    expect(socket.last("resume")).toMatchObject({ room: "r1", last_seq: 1 });
  });

  it("sends a create_room again with the same id after a retryable store error", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    await flush();
    const creating = session.createRoom({ mode: "private" });
    await flush();
    const first = socket.last("create_room");
    expect(first).toEqual({ t: "create_room", id: first.id, mode: "private" });
    socket.receive("error", { id: first.id, code: "not_replicated", message: "m", detail: { retry_ms: 500 } });
    await vi.advanceTimersByTimeAsync(500);
    const second = socket.last("create_room");
    expect(second).toEqual(first);
    socket.receive("ack", { id: second.id, result: { room: "r7", seat: 0, invite: "ABCD2345" } });
    await expect(creating).resolves.toEqual({ room: "r7", seat: 0, invite: "ABCD2345" });
    expect(socket.sent.filter((message) => message.t === "create_room")).toHaveLength(2);
  });

  it("takes a duplicate_request answer to a create_room sent again as the error it is", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    await flush();
    const creating = session.createRoom({ mode: "ai", level: "easy" });
    await flush();
    const first = socket.last("create_room");
    socket.receive("error", { id: first.id, code: "store_unavailable", message: "m", detail: { retry_ms: 500 } });
    await vi.advanceTimersByTimeAsync(500);
    socket.receive("error", { id: socket.last("create_room").id, code: "duplicate_request", message: "m" });
    await expect(creating).rejects.toMatchObject({ code: "duplicate_request" });
  });

  it("does not send an act again after other errors", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    session.follow(new RoomTracker("r1"), false);
    socket.receive("update", { room: "r1", seq: 1, events: [{ type: "deal" }], view: roomView(1) });
    const acting = session.act({ kind: "pass" });
    await flush();
    socket.receive("error", { id: socket.last("act").id, code: "internal", message: "m" });
    await expect(acting).rejects.toMatchObject({ code: "internal" });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(socket.sent.filter((message) => message.t === "act")).toHaveLength(1);
  });

  it("sends resume when a number is missed, once, and applies the catch-up", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    await flush();
    session.follow(new RoomTracker("r1", 3, roomView(3)), false);
    socket.receive("update", { room: "r1", seq: 5, events: [], view: roomView(5) });
    socket.receive("update", { room: "r1", seq: 6, events: [], view: roomView(6) });
    await flush();
    const resumes = socket.sent.filter((message) => message.t === "resume");
    expect(resumes).toHaveLength(1);
    expect(resumes[0]).toMatchObject({ room: "r1", last_seq: 3 });
    socket.receive("ack", { id: resumes[0].id, result: { from_seq: 4, to_seq: 6, mode: "events" } });
    socket.receive("update", { room: "r1", seq: 4, events: [], view: null });
    socket.receive("update", { room: "r1", seq: 5, events: [], view: null });
    socket.receive("update", { room: "r1", seq: 6, events: [], view: roomView(6) });
    expect(session.tracker?.lastSeq).toBe(6);
    expect(session.tracker?.view?.turn_seconds).toBe(6);
  });

  it("marks the updates a resume replays, and not the live ones after them (page-feel: no sound for a replay)", async () => {
    const session = makeSession();
    const seen: [number, boolean][] = [];
    session.on({ change: (_tracker, applied) => seen.push(...applied.map((entry): [number, boolean] => [entry.seq, entry.replayed === true])) });
    session.start();
    const socket = connect();
    await flush();
    session.follow(new RoomTracker("r1", 3, roomView(3)), true);
    await flush();
    const resume = socket.last("resume");
    // the catch-up may come before or after the ack's answer is read
    socket.receive("update", { room: "r1", seq: 4, events: [{ type: "discard", seat: 1, card: "QS" }], view: null });
    socket.receive("ack", { id: resume.id, result: { from_seq: 4, to_seq: 5, mode: "events" } });
    await flush();
    socket.receive("update", { room: "r1", seq: 5, events: [{ type: "draw", seat: 0, source: "stock" }], view: roomView(5) });
    socket.receive("update", { room: "r1", seq: 6, events: [{ type: "discard", seat: 0, card: "2C" }], view: roomView(6) });
    expect(seen).toEqual([
      [4, true],
      [5, true],
      [6, false],
    ]);
  });

  it("a snapshot after resume replaces the view", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    session.follow(new RoomTracker("r1", 2, roomView(2)), false);
    socket.receive("snapshot", { room: "r1", seq: 40, view: roomView(40) });
    expect(session.tracker?.lastSeq).toBe(40);
    expect(persist.room?.lastSeq).toBe(40);
  });

  it("reconnects by itself after a drop: requests in flight fail, then hello with the token and resume from the last number", async () => {
    const session = makeSession();
    const statuses: string[] = [];
    session.on({ status: (status) => statuses.push(status) });
    session.start();
    let socket = connect("tk_1");
    await flush();
    session.follow(new RoomTracker("r1"), false);
    socket.receive("update", { room: "r1", seq: 0, events: [], view: roomView(0) });
    socket.receive("update", { room: "r1", seq: 1, events: [], view: roomView(1) });
    const inFlight = session.request("stats");
    await flush();
    socket.drop();
    await expect(inFlight).rejects.toBeInstanceOf(ConnectionLost);
    expect(session.status).toBe("reconnecting");
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(backoffDelay(0, () => 0.5));
    expect(sockets).toHaveLength(2);
    socket = sockets[1];
    socket.open();
    const hello = socket.last("hello");
    expect(hello.token).toBe("tk_1");
    socket.receive("ack", { id: hello.id, result: { player_id: "p-1", name: "Ada", token: "tk_1" } });
    await flush();
    expect(socket.last("resume")).toMatchObject({ room: "r1", last_seq: 1 });
    expect(statuses).toEqual(["connecting", "online", "reconnecting", "online"]);
    // the request ids continue: nothing from the first socket is reused
    const firstIds = new Set(sockets[0].sent.map((message) => message.id));
    for (const message of socket.sent) expect(firstIds.has(message.id)).toBe(false);
  });

  it("backs off longer after each failed attempt, up to a cap", () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 10].map((attempt) => backoffDelay(attempt, () => 1));
    expect(delays).toEqual([500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
    const session = makeSession();
    session.start();
    sockets[0].drop(); // never opened: refused
    vi.advanceTimersByTime(backoffDelay(0, () => 0.5));
    expect(sockets).toHaveLength(2);
    sockets[1].drop();
    vi.advanceTimersByTime(backoffDelay(0, () => 0.5));
    expect(sockets).toHaveLength(2); // the second wait is longer
    vi.advanceTimersByTime(backoffDelay(1, () => 0.5));
    expect(sockets).toHaveLength(3);
  });

  it("follows the server's reconnect frame: waits retry_ms, then comes back and resumes", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    session.follow(new RoomTracker("r1", 7, roomView(7)), false);
    socket.receive("reconnect", { reason: "server restarting", retry_ms: 1500 });
    expect(socket.closed).toBe(true);
    expect(session.status).toBe("reconnecting");
    vi.advanceTimersByTime(1400);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(sockets).toHaveLength(2);
    connect();
    await flush();
    expect(sockets[1].last("resume")).toMatchObject({ room: "r1", last_seq: 7 });
  });

  it("bye: idle timeout comes back, a bad origin stays offline", async () => {
    const notices: string[] = [];
    const session = makeSession();
    session.on({ notice: (code) => notices.push(code) });
    session.start();
    let socket = connect();
    socket.receive("bye", { code: "idle_timeout", message: "no frame" });
    socket.drop();
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(2);
    socket = connect();
    socket.receive("bye", { code: "bad_origin", message: "not from here" });
    socket.drop();
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(2);
    expect(session.status).toBe("offline");
    expect(notices).toEqual(["idle_timeout", "bad_origin"]);
  });

  it("resume refused as stale (the server is behind us) starts over from -1", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    await flush();
    session.follow(new RoomTracker("r1", 50, roomView(50)), true);
    await flush();
    const first = socket.last("resume");
    expect(first.last_seq).toBe(50);
    socket.receive("error", { id: first.id, code: "stale_sequence", message: "behind", detail: { seq: 10 } });
    await flush();
    const second = socket.last("resume");
    expect(second.id).not.toBe(first.id);
    expect(second.last_seq).toBe(-1);
  });

  it("a room that is gone is forgotten", async () => {
    const gone: string[] = [];
    const session = makeSession();
    session.on({ roomGone: (room, code) => gone.push(`${room}:${code}`) });
    session.start();
    const socket = connect();
    await flush();
    session.follow(new RoomTracker("r1", 5, roomView(5)), true);
    await flush();
    socket.receive("error", { id: socket.last("resume").id, code: "history_gone", message: "gone" });
    await flush();
    expect(gone).toEqual(["r1:history_gone"]);
    expect(session.tracker).toBeNull();
    expect(persist.room).toBeNull();
  });

  it("pings, and treats a missing pong as a dead connection", async () => {
    const session = makeSession();
    session.start();
    const socket = connect();
    await flush();
    vi.advanceTimersByTime(20_000);
    const ping = socket.last("ping");
    socket.receive("pong", { id: ping.id });
    vi.advanceTimersByTime(20_000);
    expect(socket.closed).toBe(false);
    vi.advanceTimersByTime(20_000); // the second ping was not answered
    expect(socket.closed).toBe(true);
    expect(session.status).toBe("reconnecting");
  });
});

describe("Persist", () => {
  it("keeps the token, the room with its number and view, the stats and the language", () => {
    persist.token = "tk";
    persist.room = { room: "r1", lastSeq: 12, view: roomView(12) };
    persist.stats = { wins: 2 };
    persist.lang = "ar";
    const again = new Persist(store);
    expect(again.token).toBe("tk");
    expect(again.room).toEqual({ room: "r1", lastSeq: 12, view: roomView(12) });
    expect(again.stats).toEqual({ wins: 2 });
    expect(again.lang).toBe("ar");
    again.room = null;
    expect(new Persist(store).room).toBeNull();
  });

  it("treats broken or refused storage as empty", () => {
    store.setItem("gin.room", "{not json");
    expect(persist.room).toBeNull();
    const refusing = new Persist({
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("denied");
      },
      removeItem: () => undefined,
    });
    expect(refusing.token).toBeNull();
    refusing.token = "x";
    expect(new Persist(null).room).toBeNull();
  });
});

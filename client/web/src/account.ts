// The account endpoints (HTTP JSON, docs/protocol.md "Accounts"): claim a handle with a password
// or a passkey, sign in (password or passkey), sign out, sign out everywhere, delete. Passkeys
// go through the browser's WebAuthn (navigator.credentials) with the server's options as JSON.

export class AccountError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface SignedIn {
  player_id: string;
  handle: string;
  token: string;
  device: string;
}

type Json = Record<string, unknown>;

async function call(path: string, body: Json | null, token: string | null): Promise<Json> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  let response: Response;
  try {
    response = await fetch(path, { method: body === null ? "GET" : "POST", headers, body: body === null ? undefined : JSON.stringify(body) });
  } catch {
    throw new AccountError("offline", "the server cannot be reached");
  }
  const reply = (await response.json().catch(() => ({}))) as Json;
  if (!response.ok) throw new AccountError(String(reply.error ?? "failed"), String(reply.message ?? response.status));
  return reply;
}

export const claimWithPassword = (token: string, handle: string, password: string) =>
  call("/api/account/claim", { handle, password }, token) as Promise<unknown> as Promise<SignedIn>;

export const signInWithPassword = (handle: string, password: string, device: string | null) =>
  call("/api/account/signin", { handle, password, device }, null) as Promise<unknown> as Promise<SignedIn>;

export const signOut = (token: string) => call("/api/account/signout", {}, token);
export const signOutEverywhere = (token: string) => call("/api/account/signout-everywhere", {}, token);
export const deleteAccount = (token: string) => call("/api/account/delete", {}, token);

// --- passkeys -----------------------------------------------------------------------------------

interface PublicKeyStatics {
  parseCreationOptionsFromJSON(options: unknown): CredentialCreationOptions["publicKey"];
  parseRequestOptionsFromJSON(options: unknown): CredentialRequestOptions["publicKey"];
}

export function passkeysSupported(): boolean {
  const statics = window.PublicKeyCredential as unknown as Partial<PublicKeyStatics> | undefined;
  return typeof statics?.parseCreationOptionsFromJSON === "function" && typeof navigator.credentials?.create === "function";
}

function statics(): PublicKeyStatics {
  if (!passkeysSupported()) throw new AccountError("passkey_unsupported", "this browser has no passkeys");
  return window.PublicKeyCredential as unknown as PublicKeyStatics;
}

function asJson(credential: Credential | null): Json {
  const json = (credential as (Credential & { toJSON?: () => Json }) | null)?.toJSON?.();
  if (!json) throw new AccountError("passkey_cancelled", "no passkey was given");
  return json;
}

/** A guest keeps the player with a passkey (or an account adds one): the browser's prompt. */
export async function claimWithPasskey(token: string, handle: string | null): Promise<SignedIn> {
  const publicKey = statics();
  const { options } = (await call("/api/account/passkey/register-options", { handle }, token)) as { options: unknown };
  let created: Credential | null;
  try {
    created = await navigator.credentials.create({ publicKey: publicKey.parseCreationOptionsFromJSON(options) });
  } catch {
    throw new AccountError("passkey_cancelled", "no passkey was made");
  }
  return (await call("/api/account/passkey/register", { credential: asJson(created) }, token)) as unknown as SignedIn;
}

export async function signInWithPasskey(device: string | null): Promise<SignedIn> {
  const publicKey = statics();
  const { options } = (await call("/api/account/passkey/signin-options", {}, null)) as { options: unknown };
  let got: Credential | null;
  try {
    got = await navigator.credentials.get({ publicKey: publicKey.parseRequestOptionsFromJSON(options) });
  } catch {
    throw new AccountError("passkey_cancelled", "no passkey was given");
  }
  return (await call("/api/account/passkey/signin", { credential: asJson(got), device }, null)) as unknown as SignedIn;
}

/** A rated match's change of this player's rating (`shown`: as shown after it, "1527?"). */
export interface RatingChange {
  before: number;
  after: number;
  delta: number;
  shown: string;
}

/** A profile (docs/protocol.md "Profiles"): `GET /api/players/@HANDLE`. */
export interface ProfileMatch {
  room: string;
  result: "won" | "lost" | "unfinished";
  forfeit: boolean;
  scores: [number, number];
  hands: number;
  public: boolean;
  rated: boolean;
  rating_change: RatingChange | null;
  opponent: { name: string | null; name_id: string | null; ai: string | null; handle: string | null };
  replay: string | null;
  finished_at: number;
}

export type RecordCounts = Record<"matches" | "wins" | "hands" | "gins" | "undercuts" | "knocks" | "points", number> & { points_per_hand: number | null };

/** The rating as shown now (its deviation grown to now); `shown` is "1500?" while provisional. */
export interface ProfileRating {
  rating: number;
  rd: number;
  shown: string;
  provisional: boolean;
  matches: number;
}

/** One point per rated match, oldest first: when (unix seconds), the rating after it, the change. */
export interface RatingPoint {
  at: number;
  rating: number;
  delta: number;
}

export interface Profile {
  handle: string | null;
  name: string;
  guest: boolean;
  me: boolean;
  record: RecordCounts & { rated: RecordCounts; casual: RecordCounts };
  rating: ProfileRating | null;
  rating_history: RatingPoint[];
  matches: ProfileMatch[];
}

/** `me` (shorter than any handle): the asker's own page, a guest's too (`/api/players/me`). */
export const fetchProfile = (handle: string, token: string | null) =>
  call(handle === "me" ? "/api/players/me" : `/api/players/@${encodeURIComponent(handle)}`, null, token) as Promise<unknown> as Promise<Profile>;

/** The leaderboard (docs/ratings.md "Leaderboard"): `GET /api/leaderboard`. */
export interface Leaderboard {
  top: { rank: number; handle: string | null; rating: number }[];
  total: number;
  /** The viewer's own place (null: never rated, or no token sent); `rank` null: not on the board. */
  you: { rank: number | null; rating: number; shown: string; provisional: boolean } | null;
}

export const fetchLeaderboard = (token: string | null) => call("/api/leaderboard", null, token) as Promise<unknown> as Promise<Leaderboard>;
/** One entry of the asker's block list (`GET /api/blocks`): `ref` names it, no player id. */
export interface BlockEntry {
  ref: string;
  handle: string | null;
  name: string | null;
  at: number;
}

export const fetchBlocks = (token: string) =>
  call("/api/blocks", null, token).then((reply) => reply.blocked as BlockEntry[]);
export const blockHandle = (token: string, handle: string) =>
  call("/api/blocks", { handle }, token).then((reply) => reply.blocked as BlockEntry);
export const unblock = (token: string, ref: string) => call("/api/blocks/undo", { ref }, token);

/** A friend's presence (docs/protocol.md "Friends and presence"): `watch` only for a public room. */
export type Presence = { state: "online" } | { state: "playing"; watch?: string } | { state: "offline"; seen: number | null };

/** A request received or sent: `at` is when (ms). */
export interface FriendRequest {
  handle: string;
  name: string;
  at: number;
}

export interface Friend extends FriendRequest {
  presence: Presence;
}

export interface FriendsList {
  friends: Friend[];
  received: FriendRequest[];
  sent: FriendRequest[];
  limits: { friends: number; sent: number };
}

export const fetchFriends = (token: string) => call("/api/friends", null, token) as Promise<unknown> as Promise<FriendsList>;
export const askFriend = (token: string, handle: string) => call("/api/friends", { handle }, token);
/** Asks the player in a seat of the room the asker sits in (the table's "⋯" menu). */
export const askFriendAt = (token: string, who: PlayerRef) => call("/api/friends", who, token);
export const acceptFriend = (token: string, handle: string) => call("/api/friends/accept", { handle }, token);
export const declineFriend = (token: string, handle: string) => call("/api/friends/decline", { handle }, token);
/** Ends a friendship, or takes back one's own request. */
export const removeFriend = (token: string, handle: string) => call("/api/friends/remove", { handle }, token);

/** Who a report or a block from the table or a replay names: the other seat of a room the
 * asker sat in; from a profile, a handle (docs/protocol.md "Blocking", "Reports"). */
export type PlayerRef = { room: string; seat: number } | { handle: string };
/** The reasons of a report, as the server lists them (server/moderation.py REASONS). */
export const REPORT_REASONS = ["abuse", "cheating", "stalling", "name", "other"] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

export const sendReport = (token: string, who: PlayerRef, reason: ReportReason) => call("/api/reports", { ...who, reason }, token);
export const blockPlayer = (token: string, who: PlayerRef) =>
  call("/api/blocks", who, token).then((reply) => reply.blocked as BlockEntry);

// --- challenges (docs/protocol.md "Challenges") ---------------------------------------------------

export type ChallengeWho = "friends" | "everyone" | "nobody";
export type ChallengeState = "open" | "accepted" | "declined" | "cancelled" | "expired" | "failed";

export interface ChallengeTerms {
  id: string;
  rated: boolean;
  turn_seconds: number;
  /** The points the match is played to. */
  target: number;
  at: number;
  deadline: number;
  seconds_left: number;
}

export interface ReceivedChallenge extends ChallengeTerms {
  from: { handle: string; name: string };
}

export interface SentChallenge extends ChallengeTerms {
  to: { handle: string | null; name: string | null };
  state: ChallengeState;
  room?: string;
}

export interface ChallengeLists {
  received: ReceivedChallenge[];
  sent: SentChallenge[];
  limit: number;
}

export const fetchChallenges = (token: string) => call("/api/challenges", null, token) as Promise<unknown> as Promise<ChallengeLists>;
/** A challenge; without `target`, to the server's default match (100 points). */
export const sendChallenge = (token: string, handle: string, rated: boolean, turnSeconds: number, target?: number) =>
  call("/api/challenges", { handle, rated, turn_seconds: turnSeconds, ...(target === undefined ? {} : { target }) }, token) as Promise<unknown> as Promise<{ challenge: SentChallenge }>;
export const acceptChallenge = (token: string, id: string) => call("/api/challenges/accept", { id }, token) as Promise<unknown> as Promise<{ room: string; seat: number; rated: boolean }>;
export const declineChallenge = (token: string, id: string) => call("/api/challenges/decline", { id }, token);
export const cancelChallenge = (token: string, id: string) => call("/api/challenges/cancel", { id }, token);
export const fetchChallengeWho = (token: string) => call("/api/challenges/setting", null, token) as Promise<unknown> as Promise<{ who: ChallengeWho }>;
export const setChallengeWho = (token: string, who: ChallengeWho) => call("/api/challenges/setting", { who }, token) as Promise<unknown> as Promise<{ who: ChallengeWho }>;

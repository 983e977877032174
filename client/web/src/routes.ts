// The page's addresses: / (lobby), /room/ID (?watch=TOKEN: the watch link of a room that is not
// public), /join/CODE, /replay/ID (?match=1: the whole match from that hand on), /rules, /@/HANDLE (a profile),
// /leaderboard.

export type Route =
  | { name: "lobby" }
  | { name: "room"; id: string; watch?: string }
  | { name: "join"; code: string }
  | { name: "replay"; id: string; match?: boolean }
  | { name: "rules" }
  | { name: "profile"; handle: string }
  | { name: "leaderboard" };

const ID = "([A-Za-z0-9_-]{1,64})";

/** `search` is the query string: `?watch=TOKEN` on a room, `?match=1` on a replay. */
export function parseRoute(pathname: string, search = ""): Route {
  const path = pathname.replace(/\/+$/, "") || "/";
  let match = new RegExp(`^/room/${ID}$`).exec(path);
  if (match) {
    const watch = new URLSearchParams(search).get("watch");
    return watch && new RegExp(`^${ID}$`).test(watch) ? { name: "room", id: match[1], watch } : { name: "room", id: match[1] };
  }
  match = new RegExp(`^/join/${ID}$`).exec(path);
  if (match) return { name: "join", code: match[1] };
  match = new RegExp(`^/replay/${ID}$`).exec(path);
  if (match) return new URLSearchParams(search).get("match") ? { name: "replay", id: match[1], match: true } : { name: "replay", id: match[1] };
  if (path === "/rules") return { name: "rules" };
  if (path === "/leaderboard") return { name: "leaderboard" };
  match = /^\/@\/([^/]{1,240})$/.exec(path);
  if (match) {
    try {
      return { name: "profile", handle: decodeURIComponent(match[1]) };
    } catch {
      return { name: "lobby" };
    }
  }
  return { name: "lobby" };
}

export function routePath(route: Route): string {
  switch (route.name) {
    case "room":
      return `/room/${encodeURIComponent(route.id)}${route.watch ? `?watch=${encodeURIComponent(route.watch)}` : ""}`;
    case "join":
      return `/join/${encodeURIComponent(route.code)}`;
    case "replay":
      return `/replay/${encodeURIComponent(route.id)}${route.match ? "?match=1" : ""}`;
    case "rules":
      return "/rules";
    case "profile":
      return `/@/${encodeURIComponent(route.handle)}`;
    case "leaderboard":
      return "/leaderboard";
    default:
      return "/";
  }
}

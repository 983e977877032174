// The page's addresses: / (lobby), /room/ID, /join/CODE, /replay/ID (?match=1: the whole
// match from that hand on), /rules.

export type Route =
  | { name: "lobby" }
  | { name: "room"; id: string }
  | { name: "join"; code: string }
  | { name: "replay"; id: string; match?: boolean }
  | { name: "rules" };

const ID = "([A-Za-z0-9_-]{1,64})";

/** `search` is the query string: `?match=1` on a replay plays the whole match from that hand. */
export function parseRoute(pathname: string, search = ""): Route {
  const path = pathname.replace(/\/+$/, "") || "/";
  let match = new RegExp(`^/room/${ID}$`).exec(path);
  if (match) return { name: "room", id: match[1] };
  match = new RegExp(`^/join/${ID}$`).exec(path);
  if (match) return { name: "join", code: match[1] };
  match = new RegExp(`^/replay/${ID}$`).exec(path);
  if (match) return new URLSearchParams(search).get("match") ? { name: "replay", id: match[1], match: true } : { name: "replay", id: match[1] };
  if (path === "/rules") return { name: "rules" };
  return { name: "lobby" };
}

export function routePath(route: Route): string {
  switch (route.name) {
    case "room":
      return `/room/${encodeURIComponent(route.id)}`;
    case "join":
      return `/join/${encodeURIComponent(route.code)}`;
    case "replay":
      return `/replay/${encodeURIComponent(route.id)}${route.match ? "?match=1" : ""}`;
    case "rules":
      return "/rules";
    default:
      return "/";
  }
}

// Languages: English, Arabic (right to left), Georgian, Russian, Turkish. The language comes
// from the saved choice, else from navigator.languages, else English.

import { ar } from "./ar";
import { en, type Dictionary, type MessageKey } from "./en";
import { ka } from "./ka";
import { ru } from "./ru";
import { tr } from "./tr";

export type Lang = "en" | "ar" | "ka" | "ru" | "tr";
export type { MessageKey };

export const LANGS: { code: Lang; name: string }[] = [
  { code: "en", name: "English" },
  { code: "ar", name: "العربية" },
  { code: "ka", name: "ქართული" },
  { code: "ru", name: "Русский" },
  { code: "tr", name: "Türkçe" },
];

export const DICTIONARIES: Record<Lang, Dictionary> = { en, ar, ka, ru, tr };

export function isLang(value: unknown): value is Lang {
  return typeof value === "string" && value in DICTIONARIES;
}

/** The first supported language among the browser's (by primary subtag), or English. */
export function detectLang(saved: string | null, preferred: readonly string[]): Lang {
  if (isLang(saved)) return saved;
  for (const tag of preferred) {
    const primary = tag.toLowerCase().split(/[-_]/)[0];
    if (isLang(primary)) return primary;
  }
  return "en";
}

export function direction(lang: Lang): "rtl" | "ltr" {
  return lang === "ar" ? "rtl" : "ltr";
}

let current: Lang = "en";

export function setLang(lang: Lang): void {
  current = lang;
}

export function getLang(): Lang {
  return current;
}

export function format(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in params ? String(params[name]) : whole,
  );
}

export function t(key: MessageKey, params: Record<string, string | number> = {}, lang: Lang = current): string {
  const template = DICTIONARIES[lang][key] ?? en[key];
  return format(template, params);
}

/** A sentence about a seat: the "you" form (key + ".me") when it is the reader's own seat. */
export function tSeat(key: string, isMe: boolean, params: Record<string, string | number> = {}): string {
  const own = `${key}.me`;
  if (isMe && own in en) return t(own as MessageKey, params);
  return t(key as MessageKey, params);
}

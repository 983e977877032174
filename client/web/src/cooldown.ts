// How long the rated queue stays closed after walking out of rated matches, said in the
// player's language: minutes up to an hour and a half, whole hours beyond (a 48-hour
// cooldown is "48 hours", not "2880 minutes"). Always rounded up: it never says less than is
// left. The count and its unit in the language's own plural forms (Arabic's "10 دقائق",
// "دقيقتان", "11 دقيقة"), in Latin digits as everywhere on the page; Russian abbreviates
// ("10 мин"), so that "через" never meets a nominative.

import { getLang, t, type Lang } from "./i18n";

function spelled(count: number, unit: "minute" | "hour", lang: Lang): string {
  const unitDisplay = lang === "ru" ? "short" : "long";
  return new Intl.NumberFormat(`${lang}-u-nu-latn`, { style: "unit", unit, unitDisplay }).format(count);
}

export function cooldownText(seconds: number, lang?: Lang): string {
  const shown = lang ?? getLang();
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes <= 90) return t("error.rated_cooldown", { duration: spelled(minutes, "minute", shown) }, shown);
  return t("error.rated_cooldown_hours", { duration: spelled(Math.ceil(minutes / 60), "hour", shown) }, shown);
}

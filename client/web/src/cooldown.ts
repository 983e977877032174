// How long the rated queue stays closed after walking out of rated matches, said in the
// player's language: minutes up to an hour and a half, whole hours beyond (a 48-hour
// cooldown is "48 h", not "2880 min"). Always rounded up: it never says less than is left.

import { t, type Lang } from "./i18n";

export function cooldownText(seconds: number, lang?: Lang): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes <= 90) return t("error.rated_cooldown", { minutes }, lang);
  return t("error.rated_cooldown_hours", { hours: Math.ceil(minutes / 60) }, lang);
}

// Card notation (RULES.md): rank A 2 3 4 5 6 7 8 9 T J Q K, then suit C D H S ("7H", "TD").
// Display helpers only: the server computes melds, deadwood and every rule.

import { getLang, type Lang } from "./i18n";

export const RANKS = "A23456789TJQK";
export const SUITS = "CDHS";

const SYMBOLS: Record<string, string> = { C: "♣", D: "♦", H: "♥", S: "♠" };

export function rankOf(card: string): string {
  return card[0];
}

export function suitOf(card: string): string {
  return card[1];
}

export function isCard(card: unknown): card is string {
  return typeof card === "string" && card.length === 2 && RANKS.includes(card[0]) && SUITS.includes(card[1]);
}

/** The short face: "7♥", "10♦", "Q♠". */
export function face(card: string): { rank: string; suit: string; red: boolean } {
  const rank = rankOf(card) === "T" ? "10" : rankOf(card);
  return { rank, suit: SYMBOLS[suitOf(card)] ?? "?", red: suitOf(card) === "H" || suitOf(card) === "D" };
}

export function shortName(card: string): string {
  const { rank, suit } = face(card);
  return `${rank}${suit}`;
}

/** Display order: by suit, then rank (the server's order too). */
export function cardOrder(card: string): number {
  return SUITS.indexOf(suitOf(card)) * 13 + RANKS.indexOf(rankOf(card));
}

export function sortCards(cards: readonly string[]): string[] {
  return [...cards].sort((a, b) => cardOrder(a) - cardOrder(b));
}

/** A meld in reading order: a run by rank, a set by suit. */
export function sortMeld(meld: readonly string[]): string[] {
  return [...meld].sort((a, b) => RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)) || cardOrder(a) - cardOrder(b));
}

// --- spoken names, for screen readers and the move log ------------------------------------------

type Namer = (rank: number, suit: string) => string;

const EN_RANKS = ["ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen", "king"];
const EN_SUITS: Record<string, string> = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };

const AR_RANKS = ["آص", "اثنان", "ثلاثة", "أربعة", "خمسة", "ستة", "سبعة", "ثمانية", "تسعة", "عشرة", "ولد", "بنت", "شايب"];
const AR_SUITS: Record<string, string> = { C: "سباتي", D: "ديناري", H: "كبة", S: "بستوني" };

const RU_RANKS = ["туз", "двойка", "тройка", "четвёрка", "пятёрка", "шестёрка", "семёрка", "восьмёрка", "девятка", "десятка", "валет", "дама", "король"];
const RU_SUITS: Record<string, string> = { C: "треф", D: "бубен", H: "червей", S: "пик" };

const TR_RANKS = ["as", "iki", "üç", "dört", "beş", "altı", "yedi", "sekiz", "dokuz", "on", "vale", "kız", "papaz"];
const TR_SUITS: Record<string, string> = { C: "sinek", D: "karo", H: "kupa", S: "maça" };

const KA_RANKS = ["ტუზი", "ორიანი", "სამიანი", "ოთხიანი", "ხუთიანი", "ექვსიანი", "შვიდიანი", "რვიანი", "ცხრიანი", "ათიანი", "ვალეტი", "დამა", "მეფე"];
const KA_SUITS: Record<string, string> = { C: "ჯვრის", D: "აგურის", H: "გულის", S: "ყვავის" };

const NAMERS: Record<Lang, Namer> = {
  en: (rank, suit) => `${EN_RANKS[rank]} of ${EN_SUITS[suit]}`,
  ar: (rank, suit) => `${AR_RANKS[rank]} ${AR_SUITS[suit]}`,
  ru: (rank, suit) => `${RU_RANKS[rank]} ${RU_SUITS[suit]}`,
  tr: (rank, suit) => `${TR_SUITS[suit]} ${TR_RANKS[rank]}`,
  ka: (rank, suit) => `${KA_SUITS[suit]} ${KA_RANKS[rank]}`,
};

/** "seven of hearts", "سبعة كبة", "семёрка червей", "kupa yedi", "გულის შვიდიანი". */
export function cardName(card: string, lang: Lang = getLang()): string {
  if (!isCard(card)) return card;
  return NAMERS[lang](RANKS.indexOf(rankOf(card)), suitOf(card));
}

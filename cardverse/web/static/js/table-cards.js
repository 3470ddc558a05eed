// Cards and moves on the table page: the order in force, matching a selection of cards against
// the server's legal moves, and saying a move in words. Card and rank names come translated
// from the page (table.py, table_config); nothing here decides what the rules allow.
import { t } from "./i18n.js";

export const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"];
const SUITS = ["C", "D", "H", "S"];
const JOKERS = ["RJ", "BJ"];

let names = { cards: {}, ranks: {} };

export function setNames(config) {
  names = { cards: config.cards || {}, ranks: config.ranks || {}, separator: config.listSeparator || ", " };
}

// A list in the page's language: its items joined by the language's separator (", " in
// English, "、" in Japanese: the catalog entry the rules pages join their lists with).
export function joinList(items) {
  return items.join(names.separator);
}

export function isJoker(code) {
  return JOKERS.includes(code);
}

export function rankOf(code) {
  return isJoker(code) ? null : code.slice(0, -1);
}

// What a joker of a play stands for (its value in the play's ``jokers``) is a rank in a straight
// ("7") or, in a set under the suit lock with jokers (R44), a card of a named suit ("7H").
export function standsForCard(value) {
  return typeof value === "string" && SUITS.includes(value.slice(-1)) && RANKS.includes(value.slice(0, -1));
}

// What a joker stands for, in short words: "7" for a rank, "7♥" for a card.
export function standsShort(value) {
  return standsForCard(value) ? cardShort(value) : rankShort(value);
}

// Lowest first, in the order in force: a revolution reverses the ranks (R3); jokers are highest.
export function sortKey(code, revolution) {
  if (isJoker(code)) return 100 + JOKERS.indexOf(code);
  const rank = RANKS.indexOf(rankOf(code));
  const suit = SUITS.indexOf(code.slice(-1));
  return (revolution ? 12 - rank : rank) * 4 + suit;
}

export function sortCards(codes, revolution) {
  return [...codes].sort((a, b) => sortKey(a, revolution) - sortKey(b, revolution));
}

export function cardLabel(code) {
  return names.cards[code]?.label ?? code;
}

export function cardShort(code) {
  return names.cards[code]?.short ?? code;
}

export function rankShort(rank) {
  return names.ranks[rank] ?? rank;
}

export function cardsShort(codes, revolution = false) {
  return sortCards(codes, revolution).map(cardShort).join(" ");
}

function sameCards(move, selection) {
  const cards = move.cards || [];
  return cards.length === selection.size && cards.every((c) => selection.has(c));
}

function holds(move, selection) {
  const cards = move.cards || [];
  for (const code of selection) if (!cards.includes(code)) return false;
  return true;
}

// The legal moves (plays or gives) made of exactly the selected cards: several when a joker may
// stand for different ranks, or the same cards make a set and a straight.
export function exactMoves(legal, selection) {
  return legal.filter((m) => m.action !== "pass" && sameCards(m, selection));
}

// Cards that can still be part of a legal move together with the selection.
export function playableCards(legal, selection) {
  const out = new Set();
  for (const move of legal) {
    if (move.action === "pass" || !holds(move, selection)) continue;
    for (const code of move.cards) out.add(code);
  }
  return out;
}

export function isStraight(move) {
  // A joker standing for a rank makes a straight; one standing for a card is in a set (R44).
  if (move.jokers && Object.values(move.jokers).some((value) => !standsForCard(value))) return true;
  const ranks = new Set((move.cards || []).filter((c) => !isJoker(c)).map(rankOf));
  return ranks.size > 1;
}

// The cards of a play, with what its jokers stand for: "5♥ 6♥ Red joker (Red joker as 7)", or in
// a set whose jokers name their suits (R44) "7♣ Red joker (Red joker as 7♥)".
export function playWords(move, revolution = false) {
  const cards = move.cards || [];
  const jokers = move.jokers || {};
  if (!Object.keys(jokers).length) return cardsShort(cards, revolution);
  if (!isStraight(move)) return setWords(move, revolution);
  return straightWords(move);
}

function jokerParts(jokers) {
  return Object.entries(jokers).map(([joker, value]) =>
    standsForCard(value)
      ? t("%(joker)s as %(card)s", { joker: cardShort(joker), card: cardShort(value) })
      : t("%(joker)s as %(rank)s", { joker: cardShort(joker), rank: rankShort(value) }),
  );
}

function setWords(move, revolution) {
  const parts = jokerParts(move.jokers || {});
  const text = cardsShort(move.cards || [], revolution);
  return parts.length ? `${text} (${joinList(parts)})` : text;
}

function straightWords(move) {
  const cards = move.cards || [];
  const jokers = move.jokers || {};
  const place = (code) => (isJoker(code) ? RANKS.indexOf(jokers[code]) * 4 : sortKey(code, false));
  const ordered = [...cards].sort((a, b) => place(a) - place(b));
  const parts = jokerParts(jokers);
  const text = ordered.map(cardShort).join(" ");
  return parts.length ? `${text} (${joinList(parts)})` : text;
}

// A play in words, saying whether it is a set or a straight: "Straight: 5♥ 6♥ 7♥".
export function describeMove(move, revolution = false) {
  const cards = move.cards || [];
  if (move.action === "pass") return t("Pass");
  if (!isStraight(move)) {
    return t("Set: %(cards)s", { cards: setWords(move, revolution) });
  }
  return t("Straight: %(cards)s", { cards: straightWords(move) });
}

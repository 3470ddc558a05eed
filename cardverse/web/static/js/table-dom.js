// Small DOM helpers of the table page: finding and making elements, and drawing cards from the
// SVG templates the page carries (a joker of a straight drawn where the rank it stands for
// goes, marked with that rank; a joker of a set that names its suit, R44, marked with its card).
import { RANKS, isJoker, sortCards, sortKey, standsForCard, standsShort } from "./table-cards.js";

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function cardImage(code, extraClass = "") {
  const template = document.querySelector(`#card-svgs template[data-card="${code}"]`);
  const svg = template ? template.content.firstElementChild.cloneNode(true) : el("span");
  if (extraClass) svg.classList.add(extraClass);
  return svg;
}

// The cards of a play in the order they stand: a straight's jokers in the places of the ranks
// they stand for, a set's jokers beside the natural cards (in the place of the card they stand
// for when they name one, R44).
export function orderedPlay(cards, jokers = {}, revolution = false) {
  if (!jokers || !Object.keys(jokers).length) return sortCards(cards, revolution);
  const place = (code) => {
    const stands = isJoker(code) ? jokers[code] : null;
    if (!stands) return sortKey(code, revolution);
    if (standsForCard(stands)) return sortKey(stands, revolution) + 0.5;
    return (revolution ? 12 - RANKS.indexOf(stands) : RANKS.indexOf(stands)) * 4 + 1.5;
  };
  return [...cards].sort((a, b) => place(a) - place(b));
}

// A row of small card pictures; ``label`` says the same in words for screen readers.
export function cardRow(codes, label, { jokers = {}, revolution = false, size = "mini" } = {}) {
  const row = el("span", { class: "card-group", role: "img", "aria-label": label });
  // their number, from which the felt sizes them to the room it has (set through the CSS
  // object model, which the content security policy allows)
  row.style.setProperty("--cards", String(codes.length));
  for (const code of orderedPlay(codes, jokers, revolution)) {
    const image = cardImage(code, `${size}-card`);
    image.setAttribute("aria-hidden", "true");
    image.removeAttribute("role");
    const stands = isJoker(code) && jokers ? jokers[code] : null;
    if (stands) {
      row.append(
        el(
          "span",
          { class: "joker-in-place", "data-as": stands },
          image,
          el("span", { class: "joker-as", "aria-hidden": "true", text: standsShort(stands) }),
        ),
      );
    } else {
      row.append(image);
    }
  }
  return row;
}

export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

// Card rendering and a tiny DOM helper shared by every page.
import { SUIT_SYMBOL, cardName, suitName, capitalize } from "./i18n.js";

/** h("button.card", {attrs, on: {click}}, children...) -> element.  Tag may carry .classes. */
export function h(spec, props, ...children) {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag || "div");
  if (classes.length) el.className = classes.join(" ");
  if (props) {
    for (const [k, v] of Object.entries(props)) {
      if (v == null || v === false) continue;
      if (k === "on") for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
      else if (k === "text") el.textContent = v;
      else if (k === "class") el.className += (el.className ? " " : "") + v;
      else if (k === "style") el.style.cssText = v;
      else if (k in el && typeof v !== "string") el[k] = v;
      else el.setAttribute(k, v === true ? "" : v);
    }
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replace el's children, skipping null/false (conditional parts). */
export function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c != null && c !== false));
  return el;
}

/** Replace what follows `keep` in its parent (a heading that stays: it may have the focus). */
export function fillAfter(keep, ...children) {
  while (keep.nextSibling) keep.nextSibling.remove();
  keep.after(...children.flat().filter((c) => c != null && c !== false));
  return keep;
}

/** A rank as a card's face prints it ("T" is "10"). */
export const RANK_FACE = { T: "10" };
export const isRed = (suit) => suit === "H" || suit === "D";

/** The visible face of a card (decorative: the accessible name is on the container). */
export function cardFace(card) {
  const rank = RANK_FACE[card[0]] || card[0];
  const suit = card[1];
  return h(`span.face.${isRed(suit) ? "red" : "black"}`, { "aria-hidden": "true" },
    h("span.rank", { text: rank }), h("span.pip", { text: SUIT_SYMBOL[suit] }),
    h("span.corner", { text: SUIT_SYMBOL[suit] }));
}

/** A card that can be played: a real button named "Queen of hearts". */
export function cardButton(card, onPlay) {
  const b = h("button.card", { type: "button", "data-card": card, "aria-label": cardName(card) },
    cardFace(card));
  b.addEventListener("click", () => onPlay(card, b));
  return b;
}

/** A card shown but not playable: an image with the card's name. */
export function cardImage(card, extra) {
  return h(`span.card${extra ? "." + extra : ""}`, { role: "img", "aria-label": cardName(card), "data-card": card },
    cardFace(card));
}

export function cardBack(small = true) {
  return h(`span.card.back${small ? ".mini" : ""}`, { "aria-hidden": "true" });
}

/** A suit button for choosing trump. */
export function suitButton(suit, onChoose) {
  const b = h(`button.suit-btn.${isRed(suit) ? "red" : "black"}`,
    { type: "button", "data-suit": suit, "aria-label": capitalize(suitName(suit)) },
    h("span.pip", { "aria-hidden": "true", text: SUIT_SYMBOL[suit] }),
    h("span.suit-label", { "aria-hidden": "true", text: capitalize(suitName(suit)) }));
  b.addEventListener("click", () => onChoose(suit, b));
  return b;
}

export function suitBadge(suit) {
  return h(`span.suit-badge.${isRed(suit) ? "red" : "black"}`, {},
    h("span", { "aria-hidden": "true", text: SUIT_SYMBOL[suit] + " " }), capitalize(suitName(suit)));
}

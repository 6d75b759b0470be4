// The sides of a match's view (who plays with whom) and how their numbers are said: shared by
// the table (table.js) and the replay viewer (replay.js), so that a tally of three reads the
// same on both pages ("You 6 · Roxana 7 · Bahram 1"), never bare numbers in a changing order.
import { isolated, num, nums } from "./i18n.js";

/** The sides, seat tuples in the order of `tricks` and `score`, as the view gives them (four
 *  players: the teams; two and three: a seat a side).  Nothing derives a side from a seat;
 *  a match's public summary, which names no sides, has them by its `players`. */
export const sidesOf = (v) => v.sides
  || (v.players && v.players !== 4 ? [...Array(v.players).keys()].map((i) => [i]) : [[0, 2], [1, 3]]);
/** The side of `seat` (-1: none). */
export const sideOf = (v, seat) => sidesOf(v).findIndex((side) => side.includes(seat));
/** Whether a side has partners (the four-player game). */
export const partnered = (v) => sidesOf(v).some((side) => side.length > 1);
/** The viewer's side (0 for a view of no seat: spectators, a finished match's replay). */
export function mySide(v) {
  const i = v.seat != null ? sideOf(v, v.seat) : -1;
  return i < 0 ? 0 : i;
}
/** The sides with `first` first, then the others in order. */
export const sideOrder = (v, first) => [first, ...sidesOf(v).map((_, i) => i).filter((i) => i !== first)];

/** `arr`'s numbers (one a side, or a seat), each after its name `label(i)`, in `order`, in the
 *  page's digits: "Dara 1 · Roxana 0 · Kian 0" (each name isolated: `isolated`). */
export const named = (order, arr, label) => order.map((i) => `${isolated(String(label(i)))} ${num((arr || [])[i] ?? 0)}`).join(" · ");

/** Every side named with its number, the viewer's side first (`mySide`), then the others in
 *  seat order; `label(i)` names side `i` ("You", a name).  More than two sides are never said
 *  as bare numbers: the reader had to guess whose each was. */
export const tally = (v, arr, label) => named(sideOrder(v, mySide(v)), arr, label);

/** A side's numbers as a sentence says them: two sides "a–b", `first`'s side first (the
 *  winner's in a result; side 0 when null); more than two, each named (`tally`, `label`). */
export function points(v, arr, first, label) {
  const a = arr || [];
  if (sidesOf(v).length > 2) return tally(v, a, label);
  return nums(sideOrder(v, first ?? 0).map((i) => a[i] ?? 0));
}

// People at the table: leaving one's seat (and coming back to it during the game), the host's
// controls over other people's seats, and what the page says when the host role passes on or
// the host takes a seat away (docs/protocol.md: leave, replace, move_seat, remove).
import { t, tn } from "./i18n.js";
import { $, el } from "./table-dom.js";
import { forgetSeat, storeSeat, storedSeat } from "./table-net.js";
import { S, dispatch, isHost, seatName, seats, tableId, tablePhase } from "./table-state.js";
import { announce } from "./table-narration.js";

let leaving = false;

// The controls are given `io`: {send (a numbered message), sendRaw, render}.
export function leaveSeat(io) {
  if (S.seat === null) return;
  leaving = true;
  io.send("leave");
}

// The server accepted a message: if it was `leave`, the seat is given up here too.
export function onAck() {
  if (!leaving) return;
  leaving = false;
  const stored = storedSeat(tableId);
  if (tablePhase() === "playing" && stored) {
    storeSeat(tableId, S.seat, stored.token, true);
    announce(t("You left your seat. A computer player plays for you; you can come back until the game ends."));
  } else {
    forgetSeat(tableId);
    announce(t("You left your seat."));
  }
  dispatch({ type: "left" }); // the spectator's state came just before this answer
}

export function comeBack(io) {
  const stored = storedSeat(tableId);
  if (!stored) return;
  storeSeat(tableId, stored.seat, stored.token, false);
  io.sendRaw({ type: "join", token: stored.token });
}

export function canComeBack() {
  const stored = storedSeat(tableId);
  return Boolean(stored && stored.left && S.seat === null && tablePhase() === "playing");
}

export function onHostChanged(message) {
  let text;
  if (message.host === null) text = t("Nobody is the host now.");
  else if (message.host === S.seat) text = t("You are the host now.");
  else text = t("%(name)s is the host now.", { name: seatName(message.host) });
  return text;
}

// What changed about the people at the table, in words that stay until the next change.
export function showPeopleNote(text) {
  const note = $("people-note");
  note.textContent = text;
  note.hidden = !text;
  announce(text, true);
}

// During a game the note is a line of the board (the game covers the page, where it stands
// otherwise); it goes back above the lobby after the game.
export function placePeopleNote(inGame) {
  const note = $("people-note");
  const board = $("board");
  if (inGame && note.parentElement !== board) board.insertBefore(note, $("felt"));
  else if (!inGame && note.parentElement === board) $("watch-count").before(note);
}

export function onSeatLost(message) {
  forgetSeat(tableId);
  dispatch({ type: "left" });
  const text =
    message.reason === "removed"
      ? t("The host removed you from this table.")
      : t("The host gave your seat to a computer player.");
  return text;
}

export function onMoved(message) {
  const stored = storedSeat(tableId);
  dispatch({ type: "moved", seat: message.seat });
  if (stored) storeSeat(tableId, message.seat, stored.token);
  showPeopleNote(t("The host moved you to seat %(number)s.", { number: message.seat + 1 }));
}

// The host's buttons for a person's seat in the lobby: move to an empty seat, remove.
export function lobbySeatControls(seat, io) {
  if (!isHost() || seat.kind !== "human" || seat.seat === S.seat) return [];
  const index = seat.seat;
  const out = [];
  const empty = seats().filter((s) => s.kind === "empty");
  if (empty.length) {
    const id = `move-${index}`;
    out.push(
      el("label", { class: "sr-only", for: id, text: t("Move %(name)s to another seat", { name: seat.name }) }),
      el(
        "select",
        {
          id,
          class: "move-seat",
          "data-seat": String(index),
          onchange: (event) => {
            if (event.target.value !== "") io.send("move_seat", { seat: index, to: Number(event.target.value) });
          },
        },
        el("option", { value: "", text: t("Move to…") }),
        ...empty.map((s) =>
          el("option", { value: String(s.seat), text: t("Seat %(number)s", { number: s.seat + 1 }) }),
        ),
      ),
    );
  }
  out.push(
    el("button", {
      type: "button",
      class: "button small",
      "data-seat": String(index),
      "data-remove": String(index),
      "aria-label": t("Remove %(name)s from the table", { name: seat.name }),
      text: t("Remove"),
      onclick: () => io.send("remove", { seat: index }),
    }),
  );
  return out;
}

// During a game: the host may give an absent person's seat to a computer player for good.
export function renderHostAbsent(io) {
  const box = $("host-absent");
  const absent =
    isHost() && tablePhase() === "playing"
      ? seats().filter((s) => s.kind === "human" && s.seat !== S.seat && (!s.connected || s.auto))
      : [];
  box.hidden = absent.length === 0;
  const wanted = absent.map((s) => `${s.seat}:${s.name}`).join("|");
  if (box.dataset.wanted === wanted) return;
  box.dataset.wanted = wanted;
  $("host-absent-list").replaceChildren(
    ...absent.map((s) =>
      el(
        "li",
        {},
        el("button", {
          type: "button",
          class: "button small",
          "data-replace": String(s.seat),
          text: t("Give %(name)s's seat to a computer player", { name: s.name }),
          onclick: () => io.send("replace", { seat: s.seat }),
        }),
      ),
    ),
  );
}

export function renderComeBack() {
  $("come-back").hidden = !canComeBack();
}

// How many people watch without a seat ("3 watching"), for everyone at the table.
export function renderWatching() {
  const count = S.table ? S.table.watching || 0 : 0;
  for (const line of [$("watch-count"), $("game-watch-count")]) {
    line.hidden = count === 0;
    line.textContent = count ? tn("%(num)s watching", "%(num)s watching", count) : "";
  }
}

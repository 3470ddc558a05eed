// The board: the opponents (chips in a strip on phones, around an oval table on wide
// screens, in seat order), the pile with the play to beat, a won trick shown a moment before it
// is swept away, the exchange and the round's results in the pile area, and the turn timer.
import { t, tn } from "./i18n.js";
import { cardsShort, joinList, playWords } from "./table-cards.js";
import { $, cardRow, el } from "./table-dom.js";
import { sweep } from "./table-motion.js";
import { takenWords } from "./table-narration.js";
import { S, config, myTurn, seatName, seats, timeLeftMs, reversedOrder } from "./table-state.js";

function levelName(level) {
  return config.levels[level] || level;
}

// The others in seat order, starting with the seat after mine (as around a table).
export function opponentOrder() {
  const n = S.view ? S.view.hand_counts.length : 0;
  const start = S.seat === null ? 0 : S.seat + 1;
  const order = [];
  for (let i = 0; i < n; i += 1) {
    const index = (start + i) % n;
    if (index !== S.seat) order.push(index);
  }
  return order;
}

function seatState(index) {
  const view = S.view;
  const out = view.finished.indexOf(index);
  const passed = view.passed.includes(index);
  const turn = view.turn === index && (view.phase === "play" || view.phase === "exchange");
  let text = "";
  let short = ""; // the words on a narrow chip, where they differ
  if (out >= 0) {
    text = t("Out: place %(place)s", { place: out + 1 });
    short = t("#%(place)s", { place: out + 1 });
  }
  else if (passed) text = t("Passed");
  else if (turn) text = index === S.seat ? t("Your turn") : t("Playing…");
  return { out, passed, turn, text, short };
}

// A name on one line: what does not fit ends in "…", but a number that ends it stays whole
// ("Computer 7" -> "Comp… 7": it tells the computer players apart); the whole name is the
// tooltip and what a screen reader reads.
function playerName(name) {
  const parts = /^(.*?\S)(\s*)(\d+)$/u.exec(name);
  const shown = parts
    ? [
        el("span", { class: "name-stem", text: parts[1] }),
        el("span", { class: parts[2] ? "name-tail is-spaced" : "name-tail", text: parts[3] }),
      ]
    : [el("span", { class: "name-stem", text: name })];
  return el(
    "span",
    { class: "player-name", title: name },
    el("span", { class: "sr-only", text: name }),
    el("span", { class: "name-shown", "aria-hidden": "true" }, ...shown),
  );
}

// Away (offline, or a computer playing for the person): a compact badge beside the name, its
// words whole for screen readers and as a tooltip.
function awayBadge(words) {
  return el(
    "span",
    { class: "away-badge", title: words },
    el("span", { "aria-hidden": "true", text: t("away") }),
    el("span", { class: "sr-only", text: words }),
  );
}

export function renderPlayers() {
  const view = S.view;
  const list = $("players");
  const order = opponentOrder();
  list.dataset.count = String(order.length);
  const items = order.map((index, position) => {
    const seat = seats()[index] || {};
    const state = seatState(index);
    const title = view.titles[String(index)];
    const classes = ["player"];
    if (state.turn) classes.push("is-turn");
    if (state.passed) classes.push("is-passed");
    if (state.out >= 0) classes.push("is-out");
    const extra = [];
    if (seat.kind === "human" && !seat.connected) extra.push(t("offline"));
    if (seat.auto) extra.push(t("the computer plays"));
    if (extra.length) classes.push("is-away"); // marked by its border too, where words are cut
    const timed = state.turn && S.timer && S.timer.seat === index;
    // the place around the oval: spread over the far side of the table, left to right (and a
    // little below the sides when there are many)
    const range = order.length >= 5 ? (220 * Math.PI) / 180 : Math.PI;
    const angle = Math.PI - (range - Math.PI) / 2 + ((position + 0.5) * range) / order.length;
    const chip = el(
      "li",
      { class: classes.join(" "), "data-seat": String(index) },
      el(
        "div",
        { class: "player-head" },
        state.turn ? el("span", { class: "turn-mark", "aria-hidden": "true", text: "▶" }) : null,
        playerName(seatName(index)),
        extra.length ? awayBadge(joinList(extra)) : null,
      ),
      el(
        "div",
        { class: "player-meta" },
        title ? el("span", { class: `title-badge title-${title}`, text: config.titles[title] }) : null,
        // the words, and on a phone only the number (the words stay for screen readers)
        el(
          "span",
          { class: "player-count" },
          el("span", { class: "count-long", text: tn("%(num)s card", "%(num)s cards", view.hand_counts[index]) }),
          el("span", { class: "count-short", "aria-hidden": "true", text: String(view.hand_counts[index]) }),
        ),
        state.text && state.short
          ? el(
              "span",
              { class: "player-state" },
              el("span", { class: "state-long", text: state.text }),
              el("span", { class: "state-short", "aria-hidden": "true", text: state.short }),
            )
          : state.text
            ? el("span", { class: state.turn ? "player-state is-turn-words" : "player-state", text: state.text })
            : null,
        seat.kind === "bot" ? el("span", { class: "player-level", text: levelName(seat.level) }) : null,
        timed ? el("span", { class: "timer", role: "timer", "data-timer": "1" }) : null,
      ),
      timed ? el("span", { class: "countdown", "aria-hidden": "true" }, el("span", { class: "countdown-bar" })) : null,
    );
    // (set through the CSS object model, which a content security policy allows)
    chip.style.setProperty("--x", `${(50 + 44 * Math.cos(angle)).toFixed(2)}%`);
    chip.style.setProperty("--y", `${(55 + 45 * Math.sin(angle)).toFixed(2)}%`);
    return chip;
  });
  list.replaceChildren(...items);
}

// My own line beside the hand: title, points, "Your turn" and my timer.
export function renderMe() {
  const view = S.view;
  const title = view.titles[String(S.seat)];
  const state = seatState(S.seat);
  $("my-title").hidden = !title;
  if (title) {
    $("my-title").className = `title-badge title-${title}`;
    $("my-title").textContent = config.titles[title];
  }
  $("my-points").textContent = tn("%(num)s point", "%(num)s points", view.points[S.seat] || 0);
  $("your-turn").hidden = !myTurn();
  const mine = $("my-timer");
  const timed = state.turn && S.timer && S.timer.seat === S.seat;
  mine.hidden = !timed;
  $("my-countdown").hidden = !timed;
  mine.toggleAttribute("data-timer", Boolean(timed));
  $("my-state").textContent = state.out >= 0 || state.passed ? state.text : "";
}

const TRICK_SHOWN = 3;

export function renderPile() {
  const view = S.view;
  const box = $("trick-plays");
  const items = [];
  // newest first: the play to beat is on top
  const entries = view.trick.map((entry, index) => ({ entry, index })).reverse();
  const top = entries.find(({ entry }) => entry.action === "play");
  for (const { entry, index } of entries.slice(0, TRICK_SHOWN)) {
    const who = entry.seat === S.seat ? t("You") : seatName(entry.seat);
    if (entry.action === "pass") {
      items.push(el("li", { class: "trick-pass" }, el("span", { class: "trick-who", text: who }), " ", t("passed")));
      continue;
    }
    const isTop = top && top.index === index;
    items.push(
      el(
        "li",
        { class: isTop ? "trick-play is-top" : "trick-play", "data-seat": String(entry.seat) },
        el("span", { class: "trick-who", text: who }),
        cardRow(entry.cards, playWords(entry, reversedOrder()), {
          jokers: entry.jokers,
          revolution: reversedOrder(),
          size: isTop ? "pile" : "mini",
        }),
      ),
    );
  }
  const hidden = entries.length - TRICK_SHOWN;
  if (hidden > 0) {
    items.push(
      el("li", {
        class: "trick-more",
        text: tn("and %(num)s earlier move", "and %(num)s earlier moves", hidden),
      }),
    );
  }
  if (!items.length) {
    let text = "";
    if (view.phase === "play" && view.turn !== null) {
      // a seated person's status line says who leads; a spectator has none
      text =
        S.seat === null
          ? t("The table is empty: %(name)s leads.", { name: seatName(view.turn) })
          : t("The table is empty.");
    }
    if (view.phase === "exchange") text = t("The card exchange comes first.");
    if (text) items.push(el("li", { class: "trick-empty", text }));
  }
  const stamp = JSON.stringify([view.trick, view.turn, view.phase, S.seat]);
  if (box.dataset.stamp !== stamp) {
    box.dataset.stamp = stamp;
    box.replaceChildren(...items);
  }
  renderTaken();
}

let takenTimer = null;

// A won trick stays visible with who took it, then is swept away (at once with reduced motion).
export function renderTaken() {
  const box = $("taken");
  const taken = S.taken;
  const now = performance.now();
  if (!taken || now >= taken.until || !S.view || S.view.phase === "game_over") {
    if (!box.hidden && !box.classList.contains("is-sweeping")) {
      box.classList.add("is-sweeping");
      sweep(box, () => {
        box.hidden = true;
        box.classList.remove("is-sweeping");
      });
    }
    return;
  }
  const stamp = JSON.stringify([taken.seat, taken.cleared, taken.play, taken.until]);
  if (box.dataset.stamp !== stamp) {
    box.dataset.stamp = stamp;
    const play = taken.play;
    box.replaceChildren(
      el("span", { class: "taken-words", title: takenWords(taken), text: takenWords(taken) }),
      play ? cardRow(play.cards, playWords(play, false), { jokers: play.jokers }) : null,
    );
    box.dataset.seat = String(taken.seat);
    box.dataset.leader = String(taken.leader);
  }
  box.classList.remove("is-sweeping");
  box.hidden = false;
  clearTimeout(takenTimer);
  takenTimer = setTimeout(renderTaken, taken.until - now + 5);
}

export function renderExchange() {
  const view = S.view;
  const box = $("exchange");
  const lines = [];
  for (const entry of view.exchange) {
    if (entry.giver === S.seat) {
      lines.push([
        entry.automatic
          ? t("You gave your highest cards to %(name)s:", { name: seatName(entry.receiver) })
          : t("You gave back to %(name)s:", { name: seatName(entry.receiver) }),
        entry.cards,
      ]);
    } else if (entry.receiver === S.seat) {
      lines.push([
        entry.automatic
          ? t("%(name)s gave you their highest cards:", { name: seatName(entry.giver) })
          : t("%(name)s gave back to you:", { name: seatName(entry.giver) }),
        entry.cards,
      ]);
    }
  }
  // only while it matters: during the exchange and until the first play after it
  const show = lines.length > 0 && (view.phase === "exchange" || (view.phase === "play" && view.history.length === 0));
  box.hidden = !show;
  if (!show) return;
  $("exchange-lines").replaceChildren(
    ...lines.map(([text, cards]) => el("li", {}, el("span", { text }), " ", cardRow(cards, cardsShort(cards)))),
  );
}

// The place goes with the name, so that the results fit a phone.
export function playerCell(seat, title, place = null) {
  const name = seat === S.seat ? t("You") : seatName(seat);
  return el(
    "th",
    { scope: "row" },
    el(
      "span",
      { class: "result-player" },
      el("span", { class: "result-name", text: place === null ? name : `${place}. ${name}` }),
      title ? el("span", { class: `title-badge title-${title}`, text: config.titles[title] }) : null,
    ),
  );
}

export function roundRows(places, titles, roundPoints, totals) {
  return places.map((seat, place) =>
    el(
      "tr",
      { class: seat === S.seat ? "is-me" : null },
      playerCell(seat, titles[String(seat)], place + 1),
      el("td", { text: String(roundPoints[seat]) }),
      el("td", { text: String(totals[seat]) }),
    ),
  );
}

// The last finished round: its order, titles, points and the totals after it.
export function lastRound() {
  const view = S.view;
  if (!view || !view.places.length) return null;
  const places = view.places[view.places.length - 1];
  const sheet = S.score;
  const rounds = sheet ? sheet.rounds : [];
  let roundPoints = rounds.length ? rounds[rounds.length - 1] : null;
  if (!roundPoints) {
    roundPoints = new Array(places.length).fill(0);
    places.forEach((seat, index) => {
      roundPoints[seat] = places.length - index;
    });
  }
  return { round: view.places.length, places, titles: view.titles, roundPoints, totals: view.points };
}

export function renderRoundResults() {
  const view = S.view;
  const box = $("round-results");
  const show = view.phase === "round_over";
  box.hidden = !show;
  if (!show) return;
  const data = lastRound();
  if (!data) return;
  $("round-results-heading").textContent = t("Results of round %(round)s", { round: data.round });
  $("round-results-body").replaceChildren(...roundRows(data.places, data.titles, data.roundPoints, data.totals));
}

// The turn timers by the server's clock now (`serverNow`, ms); returns the seconds left.
export function renderTimer(serverNow) {
  const left = timeLeftMs(serverNow);
  const seconds = left === null ? null : Math.ceil(left / 1000);
  const total = S.table && S.table.turn_timer ? S.table.turn_timer * 1000 : null;
  for (const node of document.querySelectorAll("[data-timer]")) {
    if (seconds === null) continue;
    const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
    if (node.textContent !== text) node.textContent = text;
    node.dataset.remaining = String(Math.round(left));
    node.setAttribute("aria-label", tn("%(num)s second left", "%(num)s seconds left", seconds));
    node.classList.toggle("is-urgent", seconds <= 10);
  }
  for (const bar of document.querySelectorAll(".countdown-bar")) {
    const share = left !== null && total ? Math.min(1, left / total) : 0;
    bar.style.width = `${(share * 100).toFixed(1)}%`;
    bar.classList.toggle("is-urgent", seconds !== null && seconds <= 10);
  }
  return seconds;
}

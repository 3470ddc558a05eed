// What happened, in words: the server's events as sentences (the "What happened" log, kept by
// the server for the round so it survives a reload), the screen-reader announcements, and the
// list of what the computer did while the person was away.
import { t, tn } from "./i18n.js";
import { cardsShort, joinList, playWords } from "./table-cards.js";
import { $, el } from "./table-dom.js";
import { S, config, seatName } from "./table-state.js";

export function announce(text, urgent = false) {
  if (!text) return;
  const region = urgent ? $("alerts") : $("announcer");
  // a fresh node each time, so that a repeated sentence is read again
  region.replaceChildren(el("p", { text }));
}

// A part's trick state changing (R39: a jack back, a lock), told in its part's own words.
function reportWords(event) {
  const report = config.reports.find((r) => r.name === event.event);
  if (!report) return null;
  if (report.kind === "suits") return report.told.replace("%(suits)s", suitWords(event.suits));
  return event.on ? report.told : report.toldOff || null;
}

export function describeEvent(event) {
  const told = reportWords(event);
  if (told !== null) return told;
  const who = (seat) => seatName(seat);
  const me = (seat) => seat === S.seat;
  switch (event.event) {
    case "game_started":
      return t("Game %(game)s begins.", { game: event.game });
    case "game_abandoned":
      return t("Everyone left: the game ends here.");
    case "round_started":
      return event.exchange
        ? t("Round %(round)s begins with the card exchange.", { round: event.round })
        : me(event.leader)
          ? t("Round %(round)s begins: you lead.", { round: event.round })
          : t("Round %(round)s begins: %(name)s leads.", {
              round: event.round,
              name: who(event.leader),
            });
    case "gift":
    case "exchange":
    case "gave":
      if (event.cards && me(event.seat)) {
        return t("You give %(cards)s to %(name)s.", {
          cards: cardsShort(event.cards),
          name: who(event.to),
        });
      }
      if (event.cards && me(event.to)) {
        return t("%(name)s gives you %(cards)s.", {
          cards: cardsShort(event.cards),
          name: who(event.seat),
        });
      }
      return tn(
        "%(giver)s gives %(receiver)s %(num)s card.",
        "%(giver)s gives %(receiver)s %(num)s cards.",
        event.count,
        { giver: who(event.seat), receiver: who(event.to) },
      );
    case "exchange_done":
      return me(event.leader)
        ? t("The card exchange is over: you lead.")
        : t("The card exchange is over: %(name)s leads.", { name: who(event.leader) });
    case "played": {
      // in the natural order, so that the sentence is the same whenever it is read again
      const what = playWords({ action: "play", cards: event.cards, jokers: event.jokers }, false);
      return me(event.seat)
        ? t("You play %(play)s.", { play: what })
        : t("%(name)s plays %(play)s.", { name: who(event.seat), play: what });
    }
    case "passed":
      return me(event.seat) ? t("You pass.") : t("%(name)s passes.", { name: who(event.seat) });
    case "revolution":
      return event.on
        ? t("Revolution! The order of the cards is reversed.")
        : t("Counter-revolution: the normal order is back.");
    case "went_out": {
      const place = event.place + 1; // the engine's place counts from 0
      // a part's own way of placing a seat (R34, R35), in its part's words
      const finish = config.finishes[event.how];
      if (finish) {
        return (me(event.seat) ? finish.mine : finish.other)
          .replace("%(name)s", who(event.seat))
          .replace("%(place)s", String(place));
      }
      return me(event.seat)
        ? t("You are out of cards: place %(place)s.", { place })
        : t("%(name)s is out of cards: place %(place)s.", {
            name: who(event.seat),
            place,
          });
    }
    case "owed":
      if (event.kind === "give") {
        return me(event.seat)
          ? tn("Give %(num)s card to %(name)s.", "Give %(num)s cards to %(name)s.", event.count, { name: who(event.to) })
          : tn("%(giver)s owes %(receiver)s %(num)s card.", "%(giver)s owes %(receiver)s %(num)s cards.", event.count, {
              giver: who(event.seat),
              receiver: who(event.to),
            });
      }
      return me(event.seat)
        ? tn("Discard %(num)s card.", "Discard %(num)s cards.", event.count)
        : tn("%(name)s must discard %(num)s card.", "%(name)s must discard %(num)s cards.", event.count, {
            name: who(event.seat),
          });
    case "discarded":
      return me(event.seat)
        ? t("You discard %(cards)s.", { cards: cardsShort(event.cards) })
        : t("%(name)s discards %(cards)s.", { name: who(event.seat), cards: cardsShort(event.cards) });
    case "trick_ended": {
      const text = takenWords(event);
      if (event.leader === null || event.leader === undefined || event.leader === event.seat) {
        return text;
      }
      const next = me(event.leader) ? t("You lead.") : t("%(name)s leads.", { name: who(event.leader) });
      return `${text} ${next}`;
    }
    case "round_over": {
      const titles = joinList(
        event.places.map((seat) => `${config.titles[event.titles[String(seat)]] || ""}: ${who(seat)}`),
      );
      return t("Round %(round)s is over: %(titles)s.", { round: event.round, titles });
    }
    case "game_over": {
      const winners = event.standings
        .map((place, seat) => (place === 0 ? who(seat) : null))
        .filter((name) => name !== null);
      return t("The game is over. Winner: %(names)s.", { names: joinList(winners) });
    }
    default:
      return "";
  }
}

// A reaction in words for the log and screen readers: "Ada reacts: Well played".
export function reactionWords(seat, key) {
  const found = config.reactions.find((r) => r.key === key);
  const words = found ? found.label : key;
  if (seat === S.seat) return t("You react: %(reaction)s", { reaction: words });
  return t("%(name)s reacts: %(reaction)s", { name: seatName(seat), reaction: words });
}

// The suits of a lock in words ("hearts and spades"), from the page's config.
function suitWords(suits) {
  return joinList(suits.map((suit) => config.suits[suit] || suit));
}

// "Bo takes the trick." / "You clear the pile."
export function takenWords(event) {
  if (event.seat === S.seat) return event.cleared ? t("You clear the pile.") : t("You take the trick.");
  if (event.cleared) return t("%(name)s clears the pile.", { name: seatName(event.seat) });
  return t("%(name)s takes the trick.", { name: seatName(event.seat) });
}

// The rounds finished before the current one, a line each (their places are public and in
// the state, so the lines are the same after a reload), then this round's events.
export function logLines() {
  const started = S.events.find((event) => event.event === "round_started");
  const current = started ? started.round : S.view ? S.view.round : 1;
  const earlier = (S.view ? S.view.places : []).slice(0, Math.max(0, current - 1));
  const summaries = earlier.map((order, index) =>
    t("Round %(round)s: %(places)s", {
      round: index + 1,
      places: joinList(order.map((seat, place) => `${place + 1}. ${seatName(seat)}`)),
    }),
  );
  // the reactions heard this round (table-reactions.js), each after the event it followed
  const reactions = S.reactionLog.filter((r) => r.after <= S.events.length);
  const lines = [...summaries];
  let next = 0;
  const heard = (upTo) => {
    while (next < reactions.length && reactions[next].after <= upTo) {
      lines.push(reactionWords(reactions[next].seat, reactions[next].reaction));
      next += 1;
    }
  };
  S.events.forEach((event, index) => {
    heard(index);
    const line = describeEvent(event);
    if (line) lines.push(line);
  });
  heard(S.events.length);
  return lines;
}

// The round's log: in full in the side panel (wide screens) and in the log dialog; the last
// line under the pile.
export function renderLog() {
  const lines = logLines();
  const items = () => lines.map((line) => el("li", { text: line }));
  const list = $("log");
  if (list.dataset.lines !== String(lines.length) || list.dataset.first !== (lines[0] || "")) {
    list.replaceChildren(...items());
    list.dataset.lines = String(lines.length);
    list.dataset.first = lines[0] || "";
    list.scrollTop = list.scrollHeight;
  }
  if ($("log-dialog").open) $("log-full").replaceChildren(...items());
  // The last line under the pile; while a won trick is on show it says who took it, so the
  // ticker keeps the line before until the trick is swept away (no sentence twice).
  let last = lines.length - 1;
  const events = S.events;
  const showing = S.taken && performance.now() < S.taken.until;
  if (showing && events.length && events[events.length - 1].event === "trick_ended" && last > 0) {
    last -= 1;
  }
  $("ticker").textContent = last >= 0 ? lines[last] : "";
}

// One action of the stand-in computer player, in words: its cards while the round is the
// current one, how many cards for an earlier round (the server sends no more).
function awayWords(entry) {
  if (entry.action === "pass") return t("passed");
  if (entry.action === "discard") {
    return entry.cards
      ? t("discarded %(cards)s", { cards: cardsShort(entry.cards) })
      : tn("discarded %(num)s card", "discarded %(num)s cards", entry.count || 0);
  }
  if (entry.cards) {
    const what = playWords({ action: "play", cards: entry.cards, jokers: entry.jokers }, false);
    return entry.action === "give"
      ? t("gave back %(cards)s", { cards: what })
      : t("played %(cards)s", { cards: what });
  }
  return entry.action === "give"
    ? tn("gave back %(num)s card", "gave back %(num)s cards", entry.count || 0)
    : tn("played %(num)s card", "played %(num)s cards", entry.count || 0);
}

// The away list, a line a round: "Round 2: played 4♦, passed, played 9♣ 9♠".
export function awayLines(entries) {
  const rounds = [];
  for (const entry of entries) {
    const last = rounds[rounds.length - 1];
    if (last && last.round === entry.round) last.words.push(awayWords(entry));
    else rounds.push({ round: entry.round, words: [awayWords(entry)] });
  }
  return rounds.map(({ round, words }) => t("Round %(round)s: %(actions)s", { round, actions: joinList(words) }));
}

export function renderAway() {
  const box = $("away");
  const entries = S.away;
  box.hidden = !entries;
  if (!entries) return;
  // in the pile area during a game, above the results when it is over
  const home = S.view && S.view.phase !== "game_over" && !$("game").hidden ? $("board") : $("away-home");
  if (box.parentElement !== home) home.prepend(box);
  const list = $("away-list");
  if (list.dataset.count !== String(entries.length)) {
    list.replaceChildren(...awayLines(entries).map((line) => el("li", { text: line })));
    list.dataset.count = String(entries.length);
  }
}

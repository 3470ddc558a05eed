// Motion that explains what happened: a play moves from the player's place to the pile, a won
// trick is swept away, the deal and the exchange gifts arrive in the hand, a revolution turns
// the hand over. Animations run on elements already drawn in their final place (the screen
// always shows the latest state), never wait for anything, and are all skipped with
// prefers-reduced-motion.
import { reducedMotion } from "./table-dom.js";

const EASE = "cubic-bezier(0.2, 0.7, 0.2, 1)";

function centre(rect) {
  return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
}

// Move ``element`` (already in its place) in from where ``fromRect`` is.
export function flyFrom(element, fromRect, delay = 0) {
  if (reducedMotion() || !element || !fromRect || !element.animate) return;
  const to = centre(element.getBoundingClientRect());
  const from = centre(fromRect);
  const dx = from.x - to.x;
  const dy = from.y - to.y;
  if (Math.abs(dx) + Math.abs(dy) < 4) return;
  element.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(0.6)`, opacity: 0.3 },
      { transform: "none", opacity: 1 },
    ],
    { duration: 380, delay, easing: EASE, fill: "backwards" },
  );
}

// Sweep a won trick off the table, then call ``done`` (at once with reduced motion).
export function sweep(element, done) {
  if (reducedMotion() || !element.animate) {
    done();
    return;
  }
  const animation = element.animate(
    [
      { transform: "none", opacity: 1 },
      { transform: "translateY(-30%) scale(0.85)", opacity: 0 },
    ],
    { duration: 320, easing: "ease-in" },
  );
  animation.onfinish = done;
  animation.oncancel = done;
}

// The cards of a new deal arrive one after another from the middle of the table.
export function deal(cards, fromRect) {
  cards.forEach((card, index) => flyFrom(card, fromRect, Math.min(index * 35, 600)));
}

// A revolution turns the hand over.
export function flip(container) {
  if (reducedMotion() || !container.animate) return;
  container.animate(
    [{ transform: "rotateX(0)" }, { transform: "rotateX(80deg)" }, { transform: "rotateX(0)" }],
    { duration: 600, easing: "ease-in-out" },
  );
}

// A short pulse to draw the eye (my turn).
export function pulse(element) {
  if (reducedMotion() || !element || !element.animate) return;
  element.animate([{ transform: "scale(1)" }, { transform: "scale(1.08)" }, { transform: "scale(1)" }], {
    duration: 450,
    easing: "ease-out",
  });
}

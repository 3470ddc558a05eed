// Translations for the ES modules: the page holds them as JSON in a data attribute (see
// base.html; no inline script, for the Content-Security-Policy).
// Mark every string a person reads with t("...") (or tn("one", "many", n) for a count) so that
// `python -m cardverse.web.i18n update` extracts it into the catalogs; placeholders are
// %(name)s, as in the Python code, and tn() fills %(num)s with the count.
let messages = null;

function load() {
  if (messages === null) {
    const element = document.getElementById("messages");
    try {
      messages = element ? JSON.parse(element.dataset.json) : {};
    } catch {
      messages = {};
    }
  }
  return messages;
}

function fill(text, params) {
  return text.replace(/%\((\w+)\)s/g, (_, name) => String(params[name] ?? ""));
}

// The plural form index of each language, as in the Plural-Forms header of its catalog.
const PLURALS = {
  en: (n) => (n !== 1 ? 1 : 0),
  fi: (n) => (n !== 1 ? 1 : 0),
  pl: (n) =>
    n === 1 ? 0 : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 1 : 2,
  ja: () => 0,
  lt: (n) =>
    n % 10 === 1 && (n % 100 < 11 || n % 100 > 19)
      ? 0
      : n % 10 >= 2 && n % 10 <= 9 && (n % 100 < 11 || n % 100 > 19)
        ? 1
        : 2,
};

export function language() {
  return document.documentElement.lang || "en";
}

export function t(message, params = {}) {
  const text = load()[message];
  return fill(typeof text === "string" ? text : message, params);
}

export function tn(singular, plural, n, params = {}) {
  const forms = load()[singular];
  const values = { num: n, ...params };
  if (!Array.isArray(forms)) return fill(n === 1 ? singular : plural, values);
  const index = (PLURALS[language()] || PLURALS.en)(n);
  return fill(forms[Math.min(index, forms.length - 1)] || plural, values);
}

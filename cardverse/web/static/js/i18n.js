// Translations for the ES modules: the page embeds them as JSON (see base.html).
// Mark every string a person reads with t("...") so that `python -m cardverse.web.i18n update`
// extracts it into the catalogs; placeholders are %(name)s, as in the Python code.
let messages = null;

function load() {
  if (messages === null) {
    const element = document.getElementById("messages");
    try {
      messages = element ? JSON.parse(element.textContent) : {};
    } catch {
      messages = {};
    }
  }
  return messages;
}

export function t(message, params = {}) {
  const text = load()[message] ?? message;
  return text.replace(/%\((\w+)\)s/g, (_, name) => String(params[name] ?? ""));
}

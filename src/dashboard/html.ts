/**
 * Safe HTML by construction: `html\`...\`` escapes every interpolated value unless it is already `Html` (built by
 * this tag or `raw`), so a key name, an e-mail address or a hostile form field can never become markup.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const entities: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => entities[c]!);

type Part = Html | string | number | boolean | null | undefined | ReadonlyArray<Part>;

const render = (part: Part): string =>
  part instanceof Html
    ? part.text
    : Array.isArray(part)
    ? part.map(render).join("")
    : part === null || part === undefined || part === false
    ? ""
    : escapeHtml(String(part));

export const html = (strings: TemplateStringsArray, ...parts: ReadonlyArray<Part>): Html =>
  new Html(strings.reduce((out, s, i) => out + s + (i < parts.length ? render(parts[i]) : ""), ""));

/** Markup that is trusted as it is (our own constants only). */
export const raw = (text: string): Html => new Html(text);

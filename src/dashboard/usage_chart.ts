/**
 * Requests per UTC day and endpoint family as a stacked bar chart in server-rendered SVG (no script, no
 * library), with a legend and the same figures as a table for screen readers and for reading exact numbers.
 * Two drawings of the same data: a wide one, and a compact one with larger type for phones (CSS shows one).
 */
import { type Family, otherFamilyColour, usageFamilies, usageFamilyTable } from "@src/domain/families.ts";
import { type Html, html } from "./html.ts";

export interface UsagePoint {
  /** `YYYY-MM-DD` (UTC). */
  readonly day: string;
  readonly family: string;
  readonly requests: number;
}

/** Family order, names and colours (src/domain/families.ts); an unknown family is drawn after these as itself. */
const known = (f: string): f is Family => Object.hasOwn(usageFamilyTable, f);
export const familyLabel = (f: string): string => known(f) ? usageFamilyTable[f].chartLabel : f;
const colorOf = (f: string) => known(f) ? usageFamilyTable[f].chartColour : otherFamilyColour;
const swatchClass = (f: string) => (known(f) ? `fam-${f}` : "fam-other");

/** The last `n` UTC days ending with `today`, oldest first. */
export const lastDays = (today: Date, n = 30): ReadonlyArray<string> => {
  const end = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
  return Array.from(
    { length: n },
    (_, i) => new Date(end - (n - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
};

/** The axis' top: 1, 2 or 4 times a power of ten, at least `n` and 2, so its half is a whole number too. */
const niceCeiling = (n: number): number => {
  if (n <= 2) return 2;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 4, 10].map((m) => m * p).find((v) => v >= n)!;
};

const formatNumber = (n: number) => n.toLocaleString("en-US");
const requests = (n: number) => `${formatNumber(n)} request${n === 1 ? "" : "s"}`;
const compact = (n: number) =>
  n >= 1e6 ? `${+(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : String(n);
const shortDay = (day: string) => {
  const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  return `${Number(day.slice(8, 10))} ${months[Number(day.slice(5, 7)) - 1]}`;
};

interface Shape {
  readonly width: number;
  readonly height: number;
  readonly font: number;
  readonly left: number;
  readonly labelEvery: number;
}
const wide: Shape = { width: 760, height: 250, font: 12, left: 52, labelEvery: 5 };
const narrow: Shape = { width: 360, height: 230, font: 13, left: 44, labelEvery: 10 };

const drawing = (
  shape: Shape,
  days: ReadonlyArray<string>,
  order: ReadonlyArray<string>,
  count: (day: string, family: string) => number,
  top: number,
  id: string,
  summary: string,
): Html => {
  const { width, height, font, left } = shape;
  const right = 14, topPad = 10, bottom = font * 2 + 6;
  const plotW = width - left - right, plotH = height - topPad - bottom;
  const slot = plotW / days.length;
  const barW = Math.max(2, slot * 0.72);
  const y = (v: number) => topPad + plotH - (v / top) * plotH;
  const grid = [0, top / 2, top].map((v) =>
    html`
      <line x1="${left}" x2="${width - right}" y1="${y(v)}" y2="${y(v)}" stroke="#e3e3e3" />
      <text x="${left - 6}" y="${y(v) + font * 0.35}" text-anchor="end" font-size="${font}"
        fill="#5f5f5f">${compact(v)}</text>
    `
  );
  const bars = days.map((day, i) => {
    let base = 0;
    const x = left + i * slot + (slot - barW) / 2;
    return order.map((f) => {
      const n = count(day, f);
      if (n === 0) return "";
      const y0 = y(base), y1 = y(base + n);
      base += n;
      return html`
        <rect x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(
          0.5,
          y0 - y1,
        ).toFixed(1)}" fill="${colorOf(f)}">
          <title>${shortDay(day)}: ${formatNumber(n)} ${familyLabel(f)}</title>
        </rect>
      `;
    });
  });
  const labels = days.map((day, i) =>
    (days.length - 1 - i) % shape.labelEvery === 0
      ? html`
        <text x="${(left + i * slot + (i === days.length - 1 ? slot : slot / 2)).toFixed(1)}" y="${height -
          bottom + font +
          4}" text-anchor="${i === days.length - 1 ? "end" : "middle"}" font-size="${font}"
          fill="#5f5f5f">${shortDay(day)}</text>
      `
      : ""
  );
  return html`
    <svg class="chart-${shape === wide ? "wide" : "narrow"}" viewBox="0 0 ${width} ${height}" role="img"
      aria-labelledby="${id}-title ${id}-desc" xmlns="http://www.w3.org/2000/svg"
      font-family="system-ui, sans-serif">
    <title id="${id}-title">Requests per day</title><desc id="${id}-desc">${summary}</desc>
    ${grid}${bars}
    <line x1="${left}" x2="${width - right}" y1="${y(0)}" y2="${y(0)}" stroke="#9a9a9a"/>
    ${labels}
    </svg>
  `;
};

/** The chart, its legend and its table; `id` keeps several charts on one page apart. */
export const usageChart = (
  points: ReadonlyArray<UsagePoint>,
  days: ReadonlyArray<string>,
  id = "usage",
): Html => {
  const counts = new Map<string, number>();
  for (const p of points) {
    counts.set(`${p.day}|${p.family}`, (counts.get(`${p.day}|${p.family}`) ?? 0) + p.requests);
  }
  const count = (day: string, family: string) => counts.get(`${day}|${family}`) ?? 0;
  const present = new Set(points.filter((p) => p.requests > 0 && days.includes(p.day)).map((p) => p.family));
  const order = [
    ...usageFamilies.filter((k) => present.has(k)),
    ...[...present].filter((f) => !known(f)).sort(),
  ];
  const totals = days.map((d) => order.reduce((s, f) => s + count(d, f), 0));
  const total = totals.reduce((a, b) => a + b, 0);
  const busiest = totals.indexOf(Math.max(...totals));
  const summary = total === 0
    ? `No requests in the last ${days.length} days.`
    : `${requests(total)} in the last ${days.length} days; the busiest day was ${
      shortDay(days[busiest]!)
    } with ${formatNumber(totals[busiest]!)}.`;
  const top = niceCeiling(Math.max(...totals, 1));
  const legend = order.length === 0
    ? html``
    : html`<ul class="legend" aria-label="Families">${
      order.map((f) =>
        html`<li><span class="swatch ${swatchClass(f)}" aria-hidden="true"></span>${familyLabel(f)}</li>`
      )
    }</ul>`;
  const rows = days.map((d, i) => ({ d, i })).filter(({ i }) => totals[i]! > 0).reverse();
  return html`<figure class="chart" id="${id}">
<figcaption>Requests per UTC day, last ${days.length} days</figcaption>
${drawing(wide, days, order, count, top, `${id}-w`, summary)}
${drawing(narrow, days, order, count, top, `${id}-n`, summary)}
${legend}
<p class="muted">${summary}</p>
<details><summary>Show the figures as a table</summary>
${
    rows.length === 0 ? html`<p>No requests yet.</p>` : html`
      <div class="table-scroll">
        <table class="figures">
          <caption class="skip">Requests per day and family</caption>
          <thead>
            <tr><th scope="col">Day (UTC)</th>${order.map((f) =>
              html`<th scope="col" class="num">${familyLabel(f)}</th>`
            )}<th scope="col" class="num">Total</th></tr>
          </thead>
          <tbody>${rows.map(({ d, i }) =>
            html`<tr><th scope="row">${d}</th>${
              order.map((f) => html`<td class="num">${formatNumber(count(d, f))}</td>`)
            }<td class="num">${formatNumber(totals[i]!)}</td></tr>`
          )}</tbody>
        </table>
      </div>
    `
  }
</details>
</figure>`;
};

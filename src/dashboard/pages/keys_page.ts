/** `/dashboard`: the account's keys in a table, and the account's usage across them. */
import { type Html, html } from "../html.ts";
import { pageResponse, type Viewer } from "../page.ts";
import { familiesText, formatCount, formatDay, formatTime, networksText, statusOf } from "../format.ts";
import { usageChart } from "../usage_chart.ts";
import type { AccountView, KeyView, UsageView } from "../views.ts";
import { noticeBox } from "./auth_pages.ts";

export const statusBadge = (k: KeyView, now: Date): Html => {
  const s = statusOf(k, now);
  return html`<span class="status status-${s}">${s}</span>`;
};

export const usageCards = (u: UsageView): Html =>
  html`
    <div class="cards">
      <div class="card">
        <div class="figure">${formatCount(u.requestsToday)}</div>
        <div class="label">requests today (UTC)</div>
      </div>
      <div class="card">
        <div class="figure">${u.quotaLeftToday === null ? "no limit" : formatCount(u.quotaLeftToday)}</div>
        <div class="label">of today's quota left${u.sharedBy === null
          ? ""
          : ` (one FREE budget, shared by your ${u.sharedBy} active FREE key${
            u.sharedBy === 1 ? "" : "s"
          })`}</div>
      </div>
      <div class="card">
        <div class="figure">${formatCount(u.submissionsLastHour)}</div>
        <div class="label">submissions in the last hour</div>
      </div>
      <div class="card">
        <div class="figure">${formatCount(u.rateLimited)}</div>
        <div class="label">rate-limited (429) in ${u.days.length} days</div>
      </div>
    </div>
  `;

const keyRow = (k: KeyView, now: Date) =>
  html`
    <tr>
      <td data-label="Name"><a href="/dashboard/keys/${k.id}">${k.name}</a></td>
      <td data-label="Tier">${k.tier}</td>
      <td data-label="Status">${statusBadge(k, now)}</td>
      <td data-label="Key"><code>${k.hint}</code></td>
      <td data-label="Created">${formatDay(k.createdAt)}</td>
      <td data-label="Last used">${formatTime(k.lastUsedAt)}</td>
      <td data-label="Permissions">${networksText(k)}; ${familiesText(k)}</td>
      <td data-label="Expires">${formatDay(k.expiresAt)}</td>
    </tr>
  `;

export const keysPage = (
  o: {
    readonly viewer: Viewer;
    readonly account: AccountView;
    readonly keys: ReadonlyArray<KeyView>;
    readonly usage: UsageView;
    readonly notice?: string;
    readonly now: Date;
  },
): Response =>
  pageResponse({
    title: "Keys and usage",
    viewer: o.viewer,
    section: "keys",
    body: html`<h1>Keys and usage</h1>
${noticeBox(o.notice)}
<p>Account <strong>${o.account.email}</strong> · plan <strong>${o.account.plan}</strong>${
      o.account.plan === "PAID" && o.account.credits !== null
        ? html`
          · ${formatCount(o.account.credits)} credits left
        `
        : ""
    }</p>
<div class="actions"><a class="button" href="/dashboard/keys/new">Create a key</a></div>
<h2 id="keys-heading">Your keys</h2>
${
      o.keys.length === 0 ? html`<p>No keys yet. <a href="/dashboard/keys/new">Create one</a>.</p>` : html`
        <table class="stack" aria-labelledby="keys-heading">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Tier</th>
              <th scope="col">Status</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Permissions</th>
              <th scope="col">Expires</th>
            </tr>
          </thead>
          <tbody>${o.keys.map((k) => keyRow(k, o.now))}</tbody>
        </table>
      `
    }
<h2>Usage of all your keys</h2>
${usageCards(o.usage)}
${usageChart(o.usage.points, o.usage.days, "account-usage")}`,
  });

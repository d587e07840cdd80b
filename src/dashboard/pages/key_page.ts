/**
 * `/dashboard/keys/{id}`: one key's facts and usage chart, and what can be done to it: rename, rotate (a new
 * secret, shown once), deactivate or activate, and revoke (through a confirmation page, so it works without
 * script and cannot happen by one stray click).
 */
import { html } from "../html.ts";
import { pageResponse, type Viewer } from "../page.ts";
import { familiesText, formatTime, networksText } from "../format.ts";
import { usageChart } from "../usage_chart.ts";
import type { KeyView, UsageView } from "../views.ts";
import { errorBox, noticeBox } from "./auth_pages.ts";
import { statusBadge, usageCards } from "./keys_page.ts";

export const keyPage = (
  o: {
    readonly viewer: Viewer;
    readonly key: KeyView;
    readonly usage: UsageView;
    readonly notice?: string;
    readonly error?: { readonly message: string; readonly field?: string };
    readonly status?: number;
    readonly now: Date;
  },
): Response => {
  const k = o.key;
  const csrf = html`<input type="hidden" name="csrf" value="${o.viewer.csrfToken}">`;
  const revoked = k.status === "revoked";
  return pageResponse({
    title: `Key ${k.name}`,
    viewer: o.viewer,
    section: "none",
    status: o.status,
    body: html`
      <p><a href="/dashboard">← All keys</a></p>
      <h1>Key <q>${k.name}</q></h1>
      ${noticeBox(o.notice)}
      ${errorBox(o.error)}
      <dl class="facts">
        <dt>Status</dt>
        <dd>${statusBadge(k, o.now)}</dd>
        <dt>Tier</dt>
        <dd>${k.tier}</dd>
        <dt>Key</dt>
        <dd><code>${k.hint}</code></dd>
        <dt>Networks</dt>
        <dd>${networksText(k)}</dd>
        <dt>APIs</dt>
        <dd>${familiesText(k)}</dd>
        <dt>Created</dt>
        <dd>${formatTime(k.createdAt)}</dd>
        <dt>Last used</dt>
        <dd>${formatTime(k.lastUsedAt)}</dd>
        <dt>Expires</dt>
        <dd>${formatTime(k.expiresAt)}</dd>
      </dl>
      <h2>Usage</h2>
      ${usageCards(o.usage)}
      ${usageChart(o.usage.points, o.usage.days, "key-usage")}
      ${revoked ? html`<p class="muted">This key is revoked: it can no longer be used or changed.</p>` : html`
        <h2>Manage</h2>
        <section class="manage" aria-labelledby="rename-heading">
          <h3 id="rename-heading">Rename</h3>
          <form class="stack" method="post" action="/dashboard/keys/${k.id}/rename">
            ${csrf}
            <div><label for="name">Name</label>
              <input type="text" id="name" name="name" value="${k.name}" required maxlength="64"
                aria-invalid="${o.error?.field === "name" ? "true" : undefined}"></div>
            <div><button type="submit" class="secondary">Rename</button></div>
          </form>
        </section>
        <section class="manage" aria-labelledby="rotate-heading">
          <h3 id="rotate-heading">Rotate</h3>
          <p>A new secret replaces the current one, which stops working within a second. Name, tier,
            permissions and usage stay.</p>
          <form method="post" action="/dashboard/keys/${k.id}/rotate">
            ${csrf}<button type="submit" class="secondary">Rotate the secret</button>
          </form>
        </section>
        <section class="manage" aria-labelledby="pause-heading">
          <h3 id="pause-heading">${k.status === "inactive" ? "Activate" : "Deactivate"}</h3>
          ${k.status === "inactive"
            ? html`
              <p>The key is inactive: requests with it are refused (403) until you activate it again.</p>
              <form method="post" action="/dashboard/keys/${k.id}/activate">
                              ${csrf}<button type="submit" class="secondary">Activate</button>
                            </form>
            `
            : html`
              <p>Pause the key: requests with it are refused (403) until you activate it again.</p>
              <form method="post" action="/dashboard/keys/${k.id}/deactivate">
                              ${csrf}<button type="submit" class="secondary">Deactivate</button>
                            </form>
            `}
        </section>
        <section class="manage danger-zone" aria-labelledby="revoke-heading">
          <h3 id="revoke-heading">Revoke</h3>
          <p>Revoking is final: the key is refused everywhere (401 <q>Key revoked</q>) and cannot be brought
            back.</p>
          <p><a class="button danger" href="/dashboard/keys/${k.id}/revoke">Revoke this key…</a></p>
        </section>
      `}
    `,
  });
};

export const revokeConfirmPage = (o: { readonly viewer: Viewer; readonly key: KeyView }): Response =>
  pageResponse({
    title: `Revoke key ${o.key.name}`,
    viewer: o.viewer,
    section: "none",
    narrow: true,
    body: html`
      <h1>Revoke key <q>${o.key.name}</q>?</h1>
      <p>Key <code>${o.key
        .hint}</code> will stop working at once, everywhere, for good. Applications using it will be
      answered 401 <q>Key revoked</q>. This cannot be undone.</p>
      <form method="post" action="/dashboard/keys/${o.key.id}/revoke" class="actions">
        <input type="hidden" name="csrf" value="${o.viewer.csrfToken}">
        <button type="submit" class="danger">Yes, revoke it</button>
        <a href="/dashboard/keys/${o.key.id}">No, keep it</a>
      </form>
    `,
  });

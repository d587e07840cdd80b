/**
 * A key's secret, shown once: after sign-up, after creating a key and after rotating one. The page is never
 * cached and the secret is never stored anywhere it could be shown again, so it says plainly to store it now.
 */
import { html } from "../html.ts";
import { pageResponse, type Viewer } from "../page.ts";

export interface SecretShown {
  readonly title: string;
  readonly lead: string;
  readonly secret: string;
  readonly keyName: string;
  readonly tier: string;
  readonly viewer?: Viewer;
  /** Where to go once it is stored. */
  readonly next: { readonly href: string; readonly text: string };
  readonly extra?: string;
  readonly headers?: HeadersInit;
  /** Where this service is reached, for the example request. */
  readonly base: string;
}

export const secretPage = (s: SecretShown): Response =>
  pageResponse({
    title: s.title,
    viewer: s.viewer,
    section: "none",
    headers: s.headers,
    body: html`
      <h1>${s.title}</h1>
      <p>${s.lead}</p>
      <div class="notice"
        role="note"><strong>Store this key now.</strong> It is shown only once: we keep only a hash
      of it, so nobody (not even us) can show it again. If you lose it, rotate the key to get a new one.</div>
      <p><strong>${s.keyName}</strong> (${s.tier})</p>
      <div class="secret-box">
        <code class="secret" id="secret" aria-label="Your new API key">${s.secret}</code>
        <button type="button" class="secondary" data-copy="secret" hidden>Copy</button>
        <span id="secret-status" role="status" class="muted"></span>
      </div>
      <p>Send it with each request as the <code>apikey</code> header:</p>
      <pre><code>curl -H "apikey: YOUR_KEY" ${s.base}/v2/explorer/mainnet/stats</code></pre>
      ${s.extra ? html`<p>${s.extra}</p>` : ""}
      <p><a class="button" href="${s.next.href}">${s.next.text}</a></p>
    `,
  });

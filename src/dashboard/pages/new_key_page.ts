/**
 * `/dashboard/keys/new`: name, tier, networks, families and an optional expiry. On a FREE account the PAID tier
 * is shown but disabled, with the reason (the same `keyPolicy` message the programs refuse with).
 */
import { html } from "../html.ts";
import { pageResponse, type Viewer } from "../page.ts";
import { allFamilies, allNetworks, familyNames, type Tier } from "../views.ts";
import { errorBox } from "./auth_pages.ts";

export interface NewKeyValues {
  readonly name: string;
  readonly tier: Tier;
  readonly networks: ReadonlyArray<string>;
  readonly families: ReadonlyArray<string>;
  readonly expires: string;
}

export const defaultNewKey: NewKeyValues = {
  name: "",
  tier: "FREE",
  networks: allNetworks,
  families: allFamilies,
  expires: "",
};

/** One checkbox per choice, ticked when chosen. */
const checkboxes = <T extends string>(
  name: string,
  choices: ReadonlyArray<T>,
  chosen: ReadonlyArray<T>,
  label: (choice: T) => string,
) =>
  choices.map((c) =>
    html`<label><input type="checkbox" name="${name}" value="${c}"${
      chosen.includes(c)
        ? html`
          checked
        `
        : ""
    }> ${label(c)}</label>`
  );

export const newKeyPage = (
  o: {
    readonly viewer: Viewer;
    readonly plan: Tier;
    /** Why a FREE account cannot create PAID keys (keyPolicy's message), shown beside the choice. */
    readonly paidForbidden?: string;
    readonly values: NewKeyValues;
    readonly error?: { readonly message: string; readonly field?: string };
    readonly status?: number;
    readonly today: string;
  },
): Response => {
  const v = o.values;
  const invalid = (f: string) => o.error?.field === f ? "true" : undefined;
  return pageResponse({
    title: "Create a key",
    viewer: o.viewer,
    section: "new-key",
    status: o.status,
    body: html`
            <h1>Create a key</h1>
            ${errorBox(o.error)}
            <form class="stack" method="post" action="/dashboard/keys/new">
        <input type="hidden" name="csrf" value="${o.viewer.csrfToken}">
        <div><label for="name">Name<span class="hint" id="name-hint">1 to 64 characters, to tell your keys apart.</span></label>
            <input type="text" id="name" name="name" value="${v
              .name}" required maxlength="64" aria-describedby="name-hint" aria-invalid="${invalid(
                "name",
              )}"></div>
        <fieldset><legend>Tier</legend>
            <label><input type="radio" name="tier" value="FREE"${v.tier === "FREE"
              ? html`
                checked
              `
              : ""}> FREE</label>
            <label class="${o.paidForbidden
              ? "disabled"
              : ""}"><input type="radio" name="tier" value="PAID"${v.tier === "PAID"
              ? html`
                checked
              `
              : ""}${o.paidForbidden
              ? html`
                disabled aria-describedby="paid-why"
              `
              : ""}> PAID</label>
            ${o.paidForbidden ? html`<p class="hint" id="paid-why">${o.paidForbidden}</p>` : ""}
              </fieldset>
        <fieldset aria-invalid="${invalid("networks")}"><legend>Networks</legend>
            ${checkboxes("networks", allNetworks, v.networks, (n) => n)}
              </fieldset>
        <fieldset aria-invalid="${invalid("families")}"><legend>APIs</legend>
            ${checkboxes("families", allFamilies, v.families, (f) => familyNames[f] ?? f)}
              <p class="hint" id="apis-hint">Submitting transactions (<code>submitTransaction</code>) needs JSON-RPC as well.</p>
        </fieldset>
        <div><label for="expires">Expires (optional)<span class="hint" id="expires-hint">The key stops working at 00:00 UTC that day. Leave empty for no expiry.</span></label>
            <input type="date" id="expires" name="expires" value="${v.expires}" min="${o
              .today}" aria-describedby="expires-hint" aria-invalid="${invalid("expires")}"></div>
        <div class="actions"><button type="submit">Create the key</button> <a href="/dashboard">Cancel</a></div>
      </form>
    `,
  });
};

/**
 * The endpoint families come from one registry (src/domain/families.ts): the new-key form offers one checkbox
 * per permission family, the usage chart draws one legend entry (and one colour rule) per usage family, and
 * access asks for the permission families the registry names. Adding a family is one entry there.
 */
import assert from "node:assert/strict";
import { keyFamiliesOf } from "@layers/access.ts";
import { familyLabel } from "@src/domain/accounts.ts";
import {
  keyFamilies,
  permissionFamilyTable,
  usageFamilies,
  type UsageFamilySpec,
  usageFamilyTable,
} from "@src/domain/families.ts";
import { dashboardCss } from "@src/dashboard/assets/style.ts";
import { defaultNewKey, newKeyPage } from "@src/dashboard/pages/new_key_page.ts";
import { lastDays, usageChart } from "@src/dashboard/usage_chart.ts";

Deno.test("the new-key form offers one checkbox per permission family, all ticked by default", async () => {
  const page = await newKeyPage({
    viewer: { email: "a@example.com", csrfToken: "t" },
    plan: "PAID",
    values: defaultNewKey,
    today: "2026-01-01",
  }).text();
  const boxes = [...page.matchAll(/<input type="checkbox" name="families" value="([^"]+)"\s*(checked)?/g)];
  assert.deepEqual(boxes.map((m) => m[1]), [...keyFamilies]);
  assert.ok(boxes.every((m) => m[2] === "checked"));
  for (const f of keyFamilies) {
    assert.match(page, new RegExp(`value="${f}"[^>]*> ${permissionFamilyTable[f].title}<`));
  }
});

Deno.test("the usage chart draws one legend entry and one colour per usage family, in registry order", () => {
  const days = lastDays(new Date("2026-01-31T12:00:00Z"));
  const points = [...usageFamilies].reverse().map((family, i) => ({
    day: days[i]!,
    family,
    requests: i + 1,
  }));
  const chart = usageChart(points, days).toString();
  const legend = [
    ...chart.matchAll(/<li><span class="swatch fam-([a-z]+)" aria-hidden="true"><\/span>([^<]+)<\/li>/g),
  ];
  assert.deepEqual(legend.map((m) => m[1]), [...usageFamilies]);
  assert.deepEqual(legend.map((m) => m[2]), usageFamilies.map((f) => usageFamilyTable[f].chartLabel));
  for (const f of usageFamilies) {
    assert.ok(dashboardCss.includes(`.fam-${f} { background: ${usageFamilyTable[f].chartColour}; }`), f);
  }
  // a family the registry does not know is drawn after them, as itself
  const other = usageChart([...points, { day: days[0]!, family: "zzz", requests: 1 }], days).toString();
  assert.match(other, /<span class="swatch fam-other" aria-hidden="true"><\/span>zzz<\/li><\/ul>/);
});

Deno.test("access asks for the permission families the registry names, and every one has a label", () => {
  for (const f of usageFamilies) {
    assert.deepEqual(keyFamiliesOf(f, "request"), usageFamilyTable[f].needs, f);
    const spec: UsageFamilySpec = usageFamilyTable[f];
    assert.deepEqual(keyFamiliesOf(f, "submission"), spec.submissionNeeds ?? spec.needs, f);
  }
  assert.deepEqual(keyFamiliesOf("ogmios", "submission"), ["jsonrpc", "submission"]);
  assert.deepEqual(keyFamiliesOf("account", "request"), []);
  for (const f of keyFamilies) assert.equal(familyLabel[f], permissionFamilyTable[f].label);
});

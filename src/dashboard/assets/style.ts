/**
 * The dashboard's one stylesheet (served from `/dashboard/assets/dashboard.css`, so the pages' policy needs no
 * inline styles). It follows the landing page's look: system font, dark grey on white, light code boxes. Narrow
 * screens stack table rows into labelled cards, so nothing scrolls sideways at 375 px.
 */
import { otherFamilyColour, usageFamilies, usageFamilyTable } from "@src/domain/families.ts";

// the usage chart's legend colours, one rule per usage family
const familySwatches = [
  ...usageFamilies.map((f) => `.fam-${f} { background: ${usageFamilyTable[f].chartColour}; }`),
  `.fam-other { background: ${otherFamilyColour}; }`,
].join("\n");

export const dashboardCss = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { font-family: system-ui, sans-serif; margin: 0; line-height: 1.5; color: #222; background: #fff;
  overflow-wrap: break-word; }
a { color: #0b57d0; }
a:hover { color: #083c91; }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
code, .secret { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
code { background: #f3f3f3; padding: 0 .25em; border-radius: 3px; overflow-wrap: anywhere; }
pre { background: #f3f3f3; border-radius: 6px; padding: .6em .8em; white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { padding: 0; }
.secret-box code.secret { background: none; padding: 0; }
.skip { position: absolute; left: -9999px; }
.skip:focus { left: 1em; top: .5em; background: #fff; padding: .25em .5em; z-index: 2; }
header.site { border-bottom: 1px solid #e3e3e3; }
header.site .bar { max-width: 64em; margin: 0 auto; padding: .6em 1em; display: flex; flex-wrap: wrap;
  align-items: center; gap: .4em 1.2em; }
header.site .brand { font-weight: 600; color: #222; text-decoration: none; margin-right: auto; }
header.site nav { display: flex; flex-wrap: wrap; align-items: center; gap: .4em 1em; }
header.site nav a[aria-current="page"] { font-weight: 600; color: #222; text-decoration: none; }
header.site form { margin: 0; }
main { max-width: 64em; margin: 0 auto; padding: 1em 1em 3em; }
main.narrow > * { max-width: 30em; }
h1 { font-size: 1.6em; margin: .4em 0 .6em; line-height: 1.25; }
h2 { font-size: 1.25em; margin: 1.6em 0 .5em; }
p { margin: .6em 0; }
.muted { color: #5f5f5f; }
.notice, .error, .success { border-radius: 6px; padding: .7em 1em; margin: 1em 0; border: 1px solid; }
.notice { background: #fff8e1; border-color: #f0c36d; }
.error { background: #fdecea; border-color: #e0a39c; color: #6b1a12; }
.success { background: #e8f5e9; border-color: #9ccc9f; }
form.stack { display: grid; gap: .9em; margin: 1em 0; max-width: 40em; }
form.inline { display: inline; }
label { font-weight: 600; display: block; }
.hint { font-weight: normal; color: #5f5f5f; font-size: .92em; display: block; }
input[type=text], input[type=email], input[type=password], input[type=date], select {
  font: inherit; width: 100%; max-width: 28em; padding: .45em .6em; border: 1px solid #9a9a9a; border-radius: 5px;
  background: #fff; color: inherit; }
input[aria-invalid=true] { border-color: #b3261e; }
fieldset { border: 1px solid #d6d6d6; border-radius: 6px; padding: .5em .9em .7em; margin: 0; min-width: 0; }
legend { font-weight: 600; padding: 0 .3em; }
fieldset label { font-weight: normal; display: inline-flex; align-items: center; gap: .35em; margin: .2em 1.2em .2em 0; }
fieldset label.disabled { color: #8a8a8a; }
input[type=checkbox], input[type=radio] { width: 1.1em; height: 1.1em; margin: 0; }
button, .button { font: inherit; display: inline-block; padding: .45em 1em; border-radius: 5px; border: 1px solid #0b57d0;
  background: #0b57d0; color: #fff; cursor: pointer; text-decoration: none; line-height: 1.4; }
button:hover, .button:hover { background: #083c91; border-color: #083c91; color: #fff; }
button.secondary, .button.secondary { background: #fff; color: #0b57d0; }
button.secondary:hover, .button.secondary:hover { background: #eef3fc; color: #083c91; }
button.danger, .button.danger { background: #b3261e; border-color: #b3261e; color: #fff; }
button.danger:hover, .button.danger:hover { background: #8c1d18; }
button.link { background: none; border: none; color: #0b57d0; padding: 0; text-decoration: underline; }
button.link:hover { color: #083c91; background: none; }
.actions { display: flex; flex-wrap: wrap; gap: .6em; align-items: center; margin: 1em 0; }
.secret-box { display: flex; flex-wrap: wrap; gap: .6em; align-items: center; background: #f3f3f3; border: 1px solid #d6d6d6;
  border-radius: 6px; padding: .7em .9em; margin: .8em 0; }
.secret { font-size: 1.05em; overflow-wrap: anywhere; user-select: all; flex: 1 1 18em; }
table { border-collapse: collapse; width: 100%; margin: .6em 0; font-size: .95em; }
th, td { text-align: left; padding: .45em .6em; border-bottom: 1px solid #e3e3e3; vertical-align: top; }
th { font-weight: 600; background: #fafafa; }
tbody th { background: none; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.status { display: inline-block; padding: 0 .5em; border-radius: 999px; font-size: .88em; border: 1px solid; }
.status-active { background: #e8f5e9; border-color: #9ccc9f; }
.status-inactive { background: #fff8e1; border-color: #f0c36d; }
.status-revoked, .status-expired { background: #f1f1f1; border-color: #c4c4c4; color: #555; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(9.5em, 1fr)); gap: .8em; margin: 1em 0; }
.card { border: 1px solid #e3e3e3; border-radius: 6px; padding: .6em .9em; }
.card .figure { font-size: 1.5em; font-weight: 600; font-variant-numeric: tabular-nums; }
.card .label { color: #5f5f5f; font-size: .92em; }
figure.chart { margin: 1em 0; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart svg.chart-narrow { display: none; }
figure.chart figcaption { font-weight: 600; margin-bottom: .3em; }
.legend { display: flex; flex-wrap: wrap; gap: .3em 1.2em; list-style: none; padding: 0; margin: .5em 0; font-size: .92em; }
.legend li { display: inline-flex; align-items: center; gap: .4em; }
.swatch { width: .9em; height: .9em; border-radius: 2px; display: inline-block; }
${familySwatches}
details { margin: .6em 0; }
section.manage { border: 1px solid #e3e3e3; border-radius: 6px; padding: .2em 1em .8em; margin: .8em 0; }
section.manage h3 { margin: .6em 0 .2em; font-size: 1.05em; }
section.manage form.stack { margin: .4em 0 0; }
section.manage.danger-zone { border-color: #e0a39c; }
summary { cursor: pointer; color: #0b57d0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .3em 1.2em; margin: .8em 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
footer.site { border-top: 1px solid #e3e3e3; color: #5f5f5f; font-size: .9em; }
footer.site .bar { max-width: calc(64em / .9); margin: 0 auto; padding: 1em calc(1em / .9); }
@media (max-width: 40em) {
  h1 { font-size: 1.35em; }
  table.stack thead { position: absolute; left: -9999px; }
  table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: 100%; }
  table.stack tr { border: 1px solid #e3e3e3; border-radius: 6px; margin: 0 0 .8em; padding: .3em .2em; }
  table.stack td { overflow-wrap: anywhere; border: none; display: flex; justify-content: space-between; gap: 1em; padding: .25em .6em; text-align: right; }
  table.stack td::before { content: attr(data-label); font-weight: 600; text-align: left; color: #444; }
  dl.facts { grid-template-columns: 1fr; gap: 0; }
  dl.facts dd { margin-bottom: .5em; }
  .table-scroll { overflow-x: auto; }
  figure.chart svg.chart-wide { display: none; }
  figure.chart svg.chart-narrow { display: block; }
}
@media print { header.site nav, .actions { display: none; } }
`;

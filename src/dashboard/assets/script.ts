/**
 * The dashboard's one script (served from `/dashboard/assets/dashboard.js` under `script-src 'self'`): copy
 * buttons for secrets shown once. Everything works without it; the buttons stay hidden then.
 */
export const dashboardJs = `"use strict";
document.querySelectorAll("button[data-copy]").forEach(function (button) {
  var target = document.getElementById(button.getAttribute("data-copy"));
  if (!target) return;
  var status = document.getElementById(button.getAttribute("data-copy") + "-status");
  button.hidden = false;
  button.addEventListener("click", function () {
    var text = target.textContent.trim();
    var done = function (ok) {
      if (status) status.textContent = ok ? "Copied to the clipboard." : "Select the key and copy it by hand.";
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(false); });
    } else {
      var range = document.createRange();
      range.selectNodeContents(target);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      done(ok);
    }
  });
});
`;

/**
 * The hosted page's stylesheet and script, inlined under a per-response CSP nonce so the page
 * makes no request beyond itself and its status endpoint. Both are static: nothing from a
 * request is ever written into them.
 */

/** One small stylesheet: a centred card, readable on a phone first. */
export const PAGE_CSS = `
:root{color-scheme:light;--fg:#101828;--muted:#667085;--line:#e4e7ec;--bg:#f2f4f7;--card:#fff;--accent:#1f4fd6;--on-accent:#fff;--accent-text:#1f4fd6;--accent-bg:#eef3ff;--accent-line:#c7d4f7;--ok:#067647;--ok-bg:#ecfdf3;--warn:#93370d;--warn-bg:#fffaeb;--bad:#b42318;--bad-bg:#fef3f2}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"PingFang SC","Microsoft YaHei","Noto Sans CJK SC",sans-serif}
main{max-width:30rem;margin:0 auto;padding:1.25rem .75rem 2.5rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:16px;padding:1.5rem 1.25rem;box-shadow:0 1px 3px rgba(16,24,40,.06)}
.card>:last-child{margin-bottom:0}
.top{display:flex;align-items:center;justify-content:space-between;gap:.75rem;margin:0 .25rem .75rem}
.brand{display:flex;align-items:center;gap:.6rem;min-width:0}
.logo{display:block;height:2rem;width:auto;max-width:8rem;object-fit:contain;flex:none}
.merchant{font-weight:600;font-size:.95rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
.badge{flex:none;font-size:.7rem;font-weight:700;letter-spacing:.06em;text-transform:uppercase;color:#7a4a00;background:#fdf0c9;border:1px solid #f5d98b;border-radius:999px;padding:.1rem .55rem}
h1{font-size:1.25rem;line-height:1.3;margin:0 0 .25rem}
.sub{color:var(--muted);margin:0 0 1rem}
.pill{display:inline-flex;align-items:center;gap:.45rem;font-size:.85rem;font-weight:600;border-radius:999px;padding:.2rem .7rem;background:var(--accent-bg);color:var(--accent-text)}
.pill::before{content:"";width:.5rem;height:.5rem;border-radius:50%;background:currentColor}
.pill.ok{background:var(--ok-bg);color:var(--ok)}
.pill.warn{background:var(--warn-bg);color:var(--warn)}
.pill.bad{background:var(--bad-bg);color:var(--bad)}
.pill.muted{background:#f2f4f7;color:var(--muted)}
.label{display:block;font-size:.75rem;font-weight:600;letter-spacing:.05em;text-transform:uppercase;color:var(--muted);margin:0 0 .3rem}
.field{margin:1.1rem 0 0}
.amount{font-size:1.6rem;font-weight:700;line-height:1.25;word-break:break-all}
.amount small{font-size:1rem;font-weight:600;color:var(--muted)}
.amount-row{display:flex;gap:.5rem;align-items:center;justify-content:space-between;flex-wrap:wrap}
.meta{font-size:.875rem;color:var(--muted);margin:.25rem 0 0}
.qr{display:flex;justify-content:center;margin:1.25rem 0 .25rem}
.qr svg{display:block;width:13rem;height:13rem;max-width:100%;border:1px solid var(--line);border-radius:12px}
.copy-row{display:flex;gap:.5rem;align-items:stretch}
.address{flex:1;min-width:0;font:.9rem/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all;user-select:all;background:#f9fafb;border:1px solid var(--line);border-radius:10px;padding:.6rem .75rem}
button,.button{font:inherit;font-weight:600;cursor:pointer;border-radius:10px;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);padding:.6rem 1rem;text-decoration:none;display:inline-block;text-align:center}
button.secondary{background:#fff;color:var(--accent-text);border-color:var(--accent-line);padding:.4rem .8rem;font-size:.875rem}
button:focus-visible,.button:focus-visible,.option:focus-visible{outline:3px solid var(--accent-line);outline-offset:2px}
.button.block{display:block;width:100%;margin-top:1.25rem}
.timer{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;border-top:1px solid var(--line);margin-top:1.25rem;padding-top:1rem}
.countdown{font-variant-numeric:tabular-nums;font-weight:700;font-size:1.15rem}
.notice{border-radius:10px;padding:.75rem .9rem;margin:1rem 0 0;font-size:.925rem;border:1px solid transparent}
.notice.info{background:var(--accent-bg);border-color:var(--accent-line)}
.notice.warn{background:var(--warn-bg);border-color:#fedf89;color:#7a2e0e}
.notice.error{background:var(--bad-bg);border-color:#fecdca;color:var(--bad)}
.notice.ok{background:var(--ok-bg);border-color:#abefc6;color:#05603a}
.options{list-style:none;margin:1rem 0 0;padding:0;display:grid;gap:.6rem}
.options form{margin:0}
.option{width:100%;display:flex;align-items:center;justify-content:space-between;gap:.75rem;text-align:left;background:#fff;color:var(--fg);border:1px solid var(--line);border-radius:12px;padding:.8rem 1rem;font-weight:400}
.option:hover{border-color:var(--accent);background:var(--accent-bg)}
.option .coin{font-weight:600}
.option .net{display:block;font-size:.85rem;color:var(--muted)}
.option .go{color:var(--accent-text);font-weight:600;font-size:1.25rem}
.mark{width:3.5rem;height:3.5rem;border-radius:50%;display:flex;align-items:center;justify-content:center;margin:.25rem auto 1rem;font-size:1.75rem;font-weight:700}
.mark.ok{background:var(--ok-bg);color:var(--ok)}
.mark.bad{background:var(--bad-bg);color:var(--bad)}
.mark.muted{background:#f2f4f7;color:var(--muted)}
.center{text-align:center}
dl.summary{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:1.25rem 0 0;font-size:.925rem}
dl.summary dt{color:var(--muted)}
dl.summary dd{margin:0;text-align:right;word-break:break-all}
.foot{color:var(--muted);font-size:.8rem;text-align:center;margin:1rem 0 0;word-break:break-all}
.foot a{color:inherit}
.wallet{margin:.75rem 0 0;text-align:center}
.wallet .button{width:100%}
.langs{display:flex;flex-wrap:wrap;justify-content:center;gap:.25rem .9rem;list-style:none;margin:.75rem 0 0;padding:0;font-size:.85rem}
.langs a{color:var(--muted);text-decoration:none;padding:.35rem .1rem;display:inline-block}
.langs a:hover{text-decoration:underline}
.langs a[aria-current]{color:var(--fg);font-weight:600}
.notice [data-next]{display:block;margin-top:.4rem}
.confirmations{font-variant-numeric:tabular-nums;font-weight:600;margin-top:.75rem}
.input{display:block;width:100%;font:inherit;color:var(--fg);background:#fff;border:1px solid #98a2b3;border-radius:10px;padding:.55rem .7rem}
.input:focus-visible{outline:3px solid var(--accent-line);outline-offset:1px;border-color:var(--accent)}
.input[aria-invalid]{border-color:var(--bad)}
input.input{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
form.center{margin-top:.75rem}
[hidden]{display:none!important}
@media (min-width:600px){main{padding-top:3rem}.card{padding:2rem}}
`;

/**
 * Progressive enhancement only: the page is complete without it. It adds the copy button, the
 * countdown, and polling of the public status endpoint, reloading the page when the status,
 * the amount received, the chosen coin or a deposit's confirmations change (the server renders
 * the new state).
 */
export const PAGE_SCRIPT = `
(function () {
  "use strict";
  document.querySelectorAll("[data-nojs]").forEach(function (element) { element.hidden = true; });
  document.querySelectorAll("[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    if (!target) return;
    button.hidden = false;
    // The words come from the page, in its language.
    var label = button.textContent;
    var done = function () {
      button.textContent = button.getAttribute("data-copied") || label;
      setTimeout(function () { button.textContent = label; }, 2000);
    };
    var fallback = function () {
      var range = document.createRange();
      range.selectNodeContents(target);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      try { if (document.execCommand("copy")) done(); } catch (error) { /* the text stays selected */ }
    };
    button.addEventListener("click", function () {
      var text = target.textContent.trim();
      if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
      else fallback();
    });
  });

  var timer = document.querySelector("[data-seconds-left]");
  if (timer) {
    var end = Date.now() + Number(timer.getAttribute("data-seconds-left")) * 1000;
    var output = timer.querySelector("[data-countdown]");
    var two = function (n) { return (n < 10 ? "0" : "") + n; };
    var tick = function () {
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = left % 60;
      output.textContent = left === 0 ? timer.getAttribute("data-expired-text") : (h > 0 ? h + ":" + two(m) : m) + ":" + two(s);
      if (left > 0) setTimeout(tick, 500);
    };
    timer.querySelector("[data-countdown-box]").hidden = false;
    tick();
  }

  var page = document.querySelector("[data-status-url]");
  if (page) {
    var url = page.getAttribute("data-status-url");
    var every = Number(page.getAttribute("data-poll-ms")) || 3000;
    var seen = [page.getAttribute("data-status"), page.getAttribute("data-received"), page.getAttribute("data-coin"), page.getAttribute("data-confirmations")].join("|");
    var poll = function () {
      fetch(url, { cache: "no-store", headers: { Accept: "application/json" } })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (status) {
          if (status && [status.status, status.receivedAmount || "", status.coin || "", status.confirmations ? status.confirmations.count : ""].join("|") !== seen) {
            window.location.reload();
            return;
          }
          setTimeout(poll, every);
        }, function () { setTimeout(poll, every * 2); });
    };
    setTimeout(poll, every);
  }
})();
`;

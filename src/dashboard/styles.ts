/**
 * The dashboard's one stylesheet, inlined under the response's CSP nonce (no asset route, no
 * build step). Static: nothing from a request is ever written into it. Tables scroll sideways
 * on a phone rather than squeezing their columns.
 */
export const DASHBOARD_CSS = `
:root{color-scheme:light;--fg:#101828;--muted:#475467;--line:#d0d5dd;--bg:#f2f4f7;--card:#fff;--accent:#1f4fd6;--ok:#067647;--warn:#93370d;--bad:#b42318}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif}
a{color:var(--accent)}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible{outline:3px solid #9bb4f5;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem}
.skip:focus{left:.5rem}
header{background:#101828;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.25rem}
header a{color:#fff}
header .brand{font-weight:700;text-decoration:none}
header nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
header nav a[aria-current=page]{font-weight:700;text-underline-offset:4px}
header .who{margin-left:auto;font-size:.85rem;color:#d0d5dd}
header form{display:flex;gap:.4rem;align-items:center;margin:0}
header label{font-size:.85rem}
header select,header input{font:inherit;font-size:.85rem;padding:.2rem .4rem;border-radius:6px;border:1px solid #667085}
main{max-width:72rem;margin:0 auto;padding:1rem .75rem 3rem}
h1{font-size:1.35rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:0 0 .6rem}
section.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1rem;margin:0 0 1rem}
.grid{display:grid;gap:1rem;grid-template-columns:minmax(0,1fr)}
.grid>*{min-width:0}
@media (min-width:900px){.grid.two{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-weight:600;color:var(--muted);white-space:nowrap}
caption{text-align:left;padding:0 0 .3rem}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td code,.nowrap{white-space:nowrap}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem;word-break:break-all}
.tag{display:inline-block;font-size:.72rem;font-weight:700;letter-spacing:.04em;text-transform:uppercase;border-radius:999px;padding:.05rem .5rem;border:1px solid}
.tag.test{color:#7a4a00;background:#fdf0c9;border-color:#e7c66b}
.tag.live{color:#05603a;background:#ecfdf3;border-color:#75e0a7}
.tag.role{color:#fff;border-color:#98a2b3}
.tag.bad{color:var(--bad);background:#fef3f2;border-color:#fecdca}td.bad{color:var(--bad);font-weight:600}.table-wrap.pad{margin-top:.75rem}
.notice{border-radius:8px;padding:.6rem .8rem;margin:0 0 1rem;border:1px solid}
.notice.error{background:#fef3f2;border-color:#fecdca;color:var(--bad)}
.notice.ok{background:#ecfdf3;border-color:#abefc6;color:#05603a}
.notice.warn{background:#fffaeb;border-color:#fedf89;color:#7a2e0e}
form.filters{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end}
form.filters+*{margin-top:.75rem}
form.filters label,form.stack label{display:flex;flex-direction:column;font-size:.8rem;font-weight:600;color:var(--muted);gap:.15rem}
form.stack{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end}
form.fields{display:grid;gap:.75rem}
form.fields>label{display:flex;flex-direction:column;align-items:flex-start;font-size:.8rem;font-weight:600;color:var(--muted);gap:.15rem;max-width:40rem}
form.fields>label>input{width:100%}
fieldset{border:1px solid var(--line);border-radius:8px;padding:.5rem .75rem .75rem;margin:0;min-width:0}
legend{font-size:.8rem;font-weight:600;color:var(--muted);padding:0 .25rem}
fieldset p{margin:.2rem 0 .5rem;font-size:.85rem}
.check-groups{display:grid;gap:.6rem;grid-template-columns:repeat(auto-fit,minmax(min(100%,24rem),1fr))}
.checks{display:grid;gap:.15rem}
.checks label{display:flex;gap:.45rem;align-items:center;font-size:.85rem;min-height:1.75rem}
.checks input{width:1.1rem;height:1.1rem;margin:0}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center}
.actions form{margin:0}
a.button{display:inline-block;font-weight:600;text-decoration:none;border-radius:8px;border:1px solid var(--accent);padding:.4rem .9rem}
a.button.danger{color:var(--bad);border-color:var(--bad);background:#fff}
input,select{font:inherit;padding:.35rem .5rem;border:1px solid #667085;border-radius:8px;background:#fff;color:var(--fg);max-width:100%}
button{font:inherit;font-weight:600;cursor:pointer;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:#fff;padding:.4rem .9rem}
button.danger{background:#fff;color:var(--bad);border-color:var(--bad)}
td.addr{min-width:14rem}
.actions{display:flex;flex-wrap:wrap;gap:.4rem}
.actions form{margin:0}
form.stack label.wide{flex:1 1 18rem}
form.stack label.wide input{width:100%}
dl.facts{display:grid;grid-template-columns:minmax(7rem,auto) 1fr;gap:.3rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;word-break:break-all}
.pager{display:flex;justify-content:space-between;margin-top:.75rem}
.muted{color:var(--muted)}
ol.timeline{margin:0;padding-left:1.2rem}
ol.timeline li{margin:.2rem 0}
ul.plain{margin:0;padding-left:1.1rem}
`;

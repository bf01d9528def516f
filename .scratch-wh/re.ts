const A = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/;
const B = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,9})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;
const C = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)$/;
const D1 = /^-?\d+(\.\d+)?$/; const D2 = /^-?\d+(?:\.\d+)?$/;
const s = new Date().toISOString();
const fns: Record<string, () => unknown> = { A: () => A.test(s), B: () => B.test(s), C: () => C.test(s), D1: () => D1.test("25.123"), D2: () => D2.test("25.123") };
const best: Record<string, number> = {};
for (let r = 0; r < 8; r++) for (const [n, f] of Object.entries(fns)) { const t = performance.now(); let i = 0; while (performance.now() - t < 100) { for (let k = 0; k < 1000; k++) f(); i += 1000; } const us = (performance.now() - t) * 1e6 / i; best[n] = Math.min(best[n] ?? Infinity, us); }
for (const [n, ns] of Object.entries(best)) console.log(n.padEnd(4), ns.toFixed(1), "ns");

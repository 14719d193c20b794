// Parses Mermaid charts with Mermaid's own parser, as GitHub's renderer would, and exits
// non-zero if any does not parse. Usage: node check.mjs FILE...
import { JSDOM } from 'jsdom';
import { readFileSync } from 'node:fs';

// Mermaid expects a browser; a DOM from jsdom is enough for parsing.
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');
mermaid.initialize({ startOnLoad: false });

let failed = 0;
for (const file of process.argv.slice(2)) {
  try {
    const res = await mermaid.parse(readFileSync(file, 'utf8'));
    console.log(`${file}: ok (${res.diagramType})`);
  } catch (err) {
    failed++;
    console.log(`${file}: ${String(err?.message ?? err).split('\n').slice(0, 4).join(' | ')}`);
  }
}
process.exit(failed ? 1 : 0);
